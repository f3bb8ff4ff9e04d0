import type { PageProps } from '../app.js';
import { PageHeading } from '../components/ui.js';
export function OverviewPage(_: PageProps) {
  return <PageHeading>Overview</PageHeading>;
}
