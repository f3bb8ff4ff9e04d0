import type { PageProps } from '../app.js';
import { PageHeading } from '../components/ui.js';
export function InvoicePage({ id }: PageProps & { id: string }) {
  return <PageHeading>Invoice {id}</PageHeading>;
}
