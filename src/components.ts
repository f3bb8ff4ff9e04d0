// Every component of the service, in start order (one line each). `serve` builds them with the
// service context, registers their routes, starts them, and stops them in reverse order.
import type { ComponentFactory } from './component.js';

export const componentFactories: Array<{ name: string; load: () => Promise<ComponentFactory> }> = [
  { name: 'devnet', load: async () => (await import('../chain/devnet/index.js')).devnetComponent },
  { name: 'streaming', load: async () => (await import('../streaming/index.js')).streamingComponent },
  { name: 'webhooks', load: async () => (await import('../webhooks/index.js')).webhooksComponent },
  { name: 'invoices', load: async () => (await import('../invoices/index.js')).invoicesComponent },
  { name: 'indexer', load: async () => (await import('../indexer/index.js')).indexerComponent },
  { name: 'console', load: async () => (await import('../console/index.js')).consoleComponent },
];
