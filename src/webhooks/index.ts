// Module API of the webhooks component. Other producers (invoices) use the delivery engine:
//   const engine = ctx.delivery;                        // the process's engine, built by the service
//   const endpoint = await engine.createEndpoint({ producer: 'invoices', owner: `app:${id}`, url });
//   const receipt = await engine.enqueue(trx, [{ endpointId, orderingKey: invoiceId, eventType: 'invoice', body }]);
//   engine.notify(receipt);                             // after the transaction committed
export { createWebhooksComponent, webhooksComponent } from './component.js';
export { Webhooks, PRODUCER } from './manager.js';
export { webhooksMigrations } from './migrations.js';
export * from '../delivery/index.js';
