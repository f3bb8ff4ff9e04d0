// Component A: real-time streams over SSE (`/v2/sse/...`) and WebSocket JSON-RPC (`/v2/websocket`),
// fed by the event log. See docs/STREAMING.md for resume semantics and limits.
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { EventLog } from '../bus/types.js';
import type { Config } from '../config.js';
import type { Component, ComponentFactory } from '../service/component.js';
import { StreamHub, type StreamHubOptions } from './hub.js';
import { StreamMetrics } from './metrics.js';
import { sseRoutes } from './sse.js';
import { websocketRoutes } from './ws.js';

export { StreamHub, type StreamHubOptions } from './hub.js';
export { StreamMetrics } from './metrics.js';
export { SSE_PATHS } from './sse.js';
export { WS_PATH } from './ws.js';
export { OPERATION_NAMES } from './operations.js';

export interface StreamingDeps {
  events: EventLog;
  config: Pick<Config, 'streamBufferBytes' | 'streamWriteTimeoutMs' | 'streamQuietGc' | 'wsMaxAccounts'>;
  metrics: Registry;
  logger: Logger;
}

/** The component over its dependencies; `overrides` shorten timings in tests. */
export function createStreaming(deps: StreamingDeps, overrides: Partial<StreamHubOptions> = {}): Component & { hub: StreamHub } {
  const hub = new StreamHub({
    log: deps.events,
    metrics: new StreamMetrics(deps.metrics),
    logger: deps.logger.child({ component: 'streaming' }),
    bufferBytes: deps.config.streamBufferBytes,
    writeTimeoutMs: deps.config.streamWriteTimeoutMs,
    quietCollectionMs: deps.config.streamQuietGc ? undefined : null,
    ...overrides,
  });
  const limits = { maxAccounts: deps.config.wsMaxAccounts, writeTimeoutMs: hub.writeTimeoutMs };
  return {
    name: 'streaming',
    hub,
    routes: async (app: FastifyInstance) => {
      // Streams never end by themselves: close them before the server waits for connections to finish.
      app.addHook('preClose', async () => hub.stop());
      await sseRoutes(app, { hub });
      await websocketRoutes(app, { hub, limits });
    },
    start: async () => hub.start(),
    stop: async () => hub.stop(),
    health: async () => ({ ok: true, ...hub.stats() }),
  };
}

export const streamingComponent: ComponentFactory = (ctx) => createStreaming(ctx);

export default streamingComponent;
