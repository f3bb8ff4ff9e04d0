// Module API of the delivery engine: built once by the service (ServiceContext.delivery), used by
// webhooks and invoices.
export { DeliveryEngine, deliveryOptionsFromConfig, type DeliveryEngineOptions, type EnqueueReceipt } from './engine.js';
export { FakeClock, systemClock } from './clock.js';
export { deliveryMigrations } from './migrations.js';
export { GIVE_UP_AFTER_MS, retryDelayMs, parseRetryAfter } from './schedule.js';
export { deriveMessageId, newSigningSecret, sha256Hex, signatureHeader } from './signing.js';
export { EndpointRefusedError, checkEndpoint, classifyAddress, parseEndpointUrl, refusalFor, type HostResolver } from './ssrf.js';
export { deliveryHeaders } from './sender.js';
export type * from './types.js';
