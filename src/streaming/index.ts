// Component A: real-time streams over SSE (`/v2/sse/...`) and WebSocket JSON-RPC (`/v2/websocket`),
// fed by the event log. See docs/STREAMING.md for resume semantics and limits.
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { EventLog } from '../bus/types.js';
import type { Config } from '../config.js';
import type { Component, ComponentFactory } from '../service/component.js';
import { StreamHub, type StreamHubOptions } from './hub.js';
import { StreamMetrics, v2TraceMetrics } from './metrics.js';
import { sseRoutes } from './sse.js';
import { websocketRoutes } from './ws.js';
import type { FinalityTracker } from '../pipeline/finality/tracker.js';
import { V2Hub, type V2HubOptions } from './v2/hub.js';
import { chainEnricher, chainFacts } from './v2/enrich.js';
import { V2StateReader } from './v2/states.js';
import { NonFinalStates } from './v2/nonfinal-states.js';
import type { DomainBook } from '../chain/domains.js';
import type { ChainSource } from '../chain/source.js';
import { v2Routes } from './v2/routes.js';

export { StreamHub, type StreamHubOptions } from './hub.js';
export { StreamMetrics } from './metrics.js';
export { SSE_PATHS } from './sse.js';
export { WS_PATH } from './ws.js';
export { OPERATION_NAMES } from './operations.js';
export { V2Hub } from './v2/hub.js';
export { V2_SSE_PATHS, V2_WS_PATHS } from './v2/routes.js';

export interface StreamingDeps {
  events: EventLog;
  config: Pick<Config, 'streamBufferBytes' | 'streamWriteTimeoutMs' | 'streamQuietGc' | 'wsMaxAccounts'>;
  metrics: Registry;
  logger: Logger;
  /** Provisional levels for Streaming v2 (null: finalized only). */
  finality?: FinalityTracker | null;
  /** Proven account reads for Streaming v2's address book and metadata (absent: the flags add nothing). */
  source?: Pick<ChainSource, 'getAccountState' | 'getTransactions' | 'runGetMethod' | 'network' | 'onNonFinalBlock'>;
  /** The `.ton` names of the address book's `domain` (absent: always null). */
  domains?: Pick<DomainBook, 'domainOf'> | null;
}

/** The component over its dependencies; `overrides` shorten timings in tests. */
export function createStreaming(
  deps: StreamingDeps,
  overrides: Partial<StreamHubOptions> = {},
  v2Overrides: Partial<V2HubOptions> = {},
): Component & { hub: StreamHub; v2: V2Hub } {
  const hub = new StreamHub({
    log: deps.events,
    metrics: new StreamMetrics(deps.metrics),
    logger: deps.logger.child({ component: 'streaming' }),
    bufferBytes: deps.config.streamBufferBytes,
    writeTimeoutMs: deps.config.streamWriteTimeoutMs,
    quietCollectionMs: deps.config.streamQuietGc ? undefined : null,
    ...overrides,
  });
  // confirmed account states from the non-final blocks' own state updates (sources that show such blocks),
  // heard where the finality feed hears them: the leader (a listener makes a liteserver source poll)
  const nonFinal = deps.source?.onNonFinalBlock ? new NonFinalStates() : null;
  let stopNonFinal: (() => void) | null = null;
  const traceMetrics = v2TraceMetrics(deps.metrics, () => v2.assembling);
  const v2: V2Hub = new V2Hub({
    log: deps.events,
    finality: deps.finality ?? null,
    enricher: deps.source ? chainEnricher(deps.source, { domains: deps.domains ?? null }) : null,
    states: deps.source ? new V2StateReader(deps.source, undefined, nonFinal) : null,
    facts: deps.source ? chainFacts(deps.source) : null,
    onTraceBuilt: (result) => traceMetrics.inc({ result }),
    logger: deps.logger.child({ component: 'streaming-v2' }),
    bufferBytes: deps.config.streamBufferBytes,
    writeTimeoutMs: deps.config.streamWriteTimeoutMs,
    ...v2Overrides,
  });
  const limits = { maxAccounts: deps.config.wsMaxAccounts, writeTimeoutMs: hub.writeTimeoutMs };
  return {
    name: 'streaming',
    hub,
    v2,
    routes: async (app: FastifyInstance) => {
      // Streams never end by themselves: close them before the server waits for connections to finish.
      app.addHook('preClose', async () => {
        hub.stop();
        v2.stop();
      });
      await sseRoutes(app, { hub });
      await websocketRoutes(app, { hub, limits });
      await v2Routes(app, v2);
    },
    start: async () => {
      hub.start();
      v2.start();
    },
    startLeader: async () => {
      if (nonFinal && !stopNonFinal) stopNonFinal = deps.source!.onNonFinalBlock!((b) => nonFinal.add(b));
    },
    stopLeader: async () => {
      stopNonFinal?.();
      stopNonFinal = null;
    },
    stop: async () => {
      stopNonFinal?.();
      stopNonFinal = null;
      hub.stop();
      v2.stop();
    },
    health: async () => ({ ok: true, ...hub.stats() }),
  };
}

export const streamingComponent: ComponentFactory = (ctx) => createStreaming(ctx);

export default streamingComponent;
