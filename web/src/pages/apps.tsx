import type { PageProps } from '../app.js';
import { PageHeading } from '../components/ui.js';
export function AppsPage(_: PageProps) {
  return <PageHeading>Applications</PageHeading>;
}
