// The settings table: every setting the service reads, one entry each (its variable, default, allowed
// values and one line of documentation). The loader (load.ts), the `--print-config` dump and the README's
// configuration table (print.ts, scripts/config-table.ts) all come from it, so adding a setting is one entry.
import { tryParseAccountId } from '../chain/address.js';
import { parseShares } from './replay-shares.js';
import { bool, int, oneOf, optionalText, origins, text, type Setting } from './setting.js';

/** The parts of the service a process may run (TONWATCH_ROLES). */
export const ROLES = ['follower', 'api', 'worker'] as const;
export type Role = (typeof ROLES)[number];

const KiB = 1024;
const MiB = 1024 * KiB;

/** The settings table. Keys are the names code uses (`config.port`); `env` is what operators set. */
export const settings = {
  port: int({ env: 'PORT', min: 0, max: 65535, default: 8080, doc: 'TCP port of the HTTP server (every API, the docs and metrics); 0 picks a free port.' }),
  host: text({
    env: 'HOST',
    default: '0.0.0.0',
    allowed: 'a host name or IP address',
    pattern: /^[A-Za-z0-9.:_-]+$/,
    doc: 'Address the HTTP server listens on.',
  }),
  dataDir: text({
    env: 'TONWATCH_DATA_DIR',
    default: './data',
    allowed: 'a directory path',
    pattern: /^[^\0]+$/,
    doc: 'Directory for the SQLite file and the devnet state.',
  }),
  databaseUrl: optionalText({
    env: 'DATABASE_URL',
    allowed: 'a postgres:// or postgresql:// URL',
    pattern: /^postgres(ql)?:\/\/\S+$/,
    defaultDoc: 'unset: SQLite file `<data dir>/tonwatch.sqlite`',
    secret: true,
    doc: 'PostgreSQL connection URL; when unset the embedded SQLite store is used.',
  }),
  adminKey: optionalText({
    env: 'TONWATCH_ADMIN_KEY',
    allowed: 'at least 16 characters without spaces',
    pattern: /^\S{16,512}$/,
    defaultDoc: 'unset: generated on first start and printed once',
    secret: true,
    doc: 'Admin API key (scope admin), for automation.',
  }),
  chain: oneOf({
    env: 'TONWATCH_CHAIN',
    values: ['devnet', 'replay', 'liteserver'] as const,
    default: 'devnet',
    doc: 'Chain source: the embedded local devnet, replayed blocks (load tests), or `liteserver`: a real network (TONWATCH_NETWORK) through its public liteservers, every reply proven.',
  }),
  network: oneOf({
    env: 'TONWATCH_NETWORK',
    values: ['mainnet', 'testnet'] as const,
    default: 'mainnet',
    doc: 'Liteserver chain source: the network to follow; its official global config (liteservers, trust anchor) is fetched from ton.org at start and cached in the data dir. Ignored when TONWATCH_LITESERVER_CONFIG is set.',
  }),
  liteserverConfig: optionalText({
    env: 'TONWATCH_LITESERVER_CONFIG',
    allowed: 'a file path or an http(s) URL of a global.config.json',
    pattern: /^[^\0]+$/,
    defaultDoc: "unset: TONWATCH_NETWORK's official config",
    doc: 'Liteserver chain source: the global.config.json (liteservers and trust anchor) to use instead of the official one; a URL is cached in the data dir like the official config.',
  }),
  trust: oneOf({
    env: 'TONWATCH_TRUST',
    values: ['secure', 'fast'] as const,
    default: 'secure',
    doc: "Liteserver chain source: how a masterchain head is believed (everything below it is proven by hashes either way). `secure`: once validator signatures prove it, key block by key block, from the global config's `validator.init_block`, and it descends from the head believed before (stops any number of lying liteservers; the newest key block proven is kept in the store); `fast`: when two liteservers report the same block (stops one liar, not two that agree; warned at start).",
  }),
  liteserverMaxLagBlocks: int({
    env: 'TONWATCH_LITESERVER_MAX_LAG_BLOCKS',
    min: 1,
    max: 1_000_000,
    default: 30,
    doc: 'Liteserver chain source, `secure` trust: masterchain blocks a liteserver\'s head may lag the best proven head before it is reported as withholding (log, /readyz, /metrics) and demoted.',
  }),
  liteserverRecord: optionalText({
    env: 'TONWATCH_LITESERVER_RECORD',
    allowed: 'a file path',
    pattern: /^[^\0]+$/,
    defaultDoc: 'unset: nothing recorded',
    doc: 'Liteserver chain source: append every liteserver query and reply to this file as JSON Lines (turns a session on a real network into test data; docs/LITESERVER.md).',
  }),
  overlayAddress: optionalText({
    env: 'TONWATCH_OVERLAY_ADDRESS',
    allowed: 'an IPv4 address and UDP port, ip:port',
    pattern: /^\d{1,3}(\.\d{1,3}){3}:\d{1,5}$/,
    defaultDoc: 'unset: no overlay (pending streams hear only messages this process sends)',
    doc: 'Liteserver chain source: the public UDP address (ip:port, reachable from the internet) at which tonwatch joins the public overlay of workchain 0 — TON\'s gossip network — and hears every external message before its block (mempool stream, mempool webhooks). Open this one UDP port; docs/CHAIN_SOURCE.md.',
  }),
  overlayListen: optionalText({
    env: 'TONWATCH_OVERLAY_LISTEN',
    allowed: 'an IPv4 address and UDP port, ip:port',
    pattern: /^\d{1,3}(\.\d{1,3}){3}:\d{1,5}$/,
    defaultDoc: "unset: 0.0.0.0 and TONWATCH_OVERLAY_ADDRESS's port",
    doc: 'Liteserver chain source: where the overlay\'s UDP socket binds (behind NAT or a port mapping, when it differs from TONWATCH_OVERLAY_ADDRESS).',
  }),
  overlayMaxPeers: int({
    env: 'TONWATCH_OVERLAY_MAX_PEERS', min: 1, max: 1000, default: 64,
    doc: 'Overlay: members of the public overlay kept as neighbours (the longest silent is dropped first).',
  }),
  overlayBytesPerSecond: int({
    env: 'TONWATCH_OVERLAY_BYTES_PER_SECOND', min: 64 * KiB, max: 1024 * MiB, default: 8 * MiB,
    doc: 'Overlay: UDP bytes per second taken from all sources together; datagrams above it are dropped (counted) before decryption.',
  }),
  overlayMessagesPerSecond: int({
    env: 'TONWATCH_OVERLAY_MESSAGES_PER_SECOND', min: 1, max: 100_000, default: 200,
    doc: 'Overlay: broadcast messages per second taken from each neighbour (twice that as a burst); more are dropped and counted.',
  }),
  overlayMemoryMb: int({
    env: 'TONWATCH_OVERLAY_MEMORY_MB', min: 8, max: 4096, default: 64,
    doc: 'Overlay: megabytes it may hold in FEC broadcasts being assembled, de-duplication tables and messages waiting for emulation.',
  }),
  startSeqno: {
    env: 'TONWATCH_START_SEQNO',
    allowed: 'an integer ≥ 1',
    defaultDoc: "unset: the network profile's start (the devnet's oldest block, a real network's head)",
    parse: (raw: string) => (/^\d+$/.test(raw) && Number.isSafeInteger(Number(raw)) && Number(raw) >= 1 ? Number(raw) : undefined),
    doc: 'Masterchain seqno the follower starts from on a store that has followed nothing yet (then it catches up to the head; 2 or more on liteservers); ignored once the store holds a cursor.',
  } satisfies Setting<number | undefined>,
  blockIntervalMs: int({
    env: 'TONWATCH_BLOCK_INTERVAL_MS',
    min: 100,
    max: 60_000,
    default: 1000,
    doc: 'Devnet and replay: time between produced blocks, in milliseconds.',
  }),
  devnetManualBlocks: bool({
    env: 'TONWATCH_DEVNET_MANUAL_BLOCKS',
    default: false,
    doc: 'Devnet: produce blocks only on `POST /devnet/blocks` (deterministic tests) instead of every TONWATCH_BLOCK_INTERVAL_MS.',
  }),
  devnetConfirmationLagMs: int({
    env: 'TONWATCH_DEVNET_CONFIRMATION_LAG_MS',
    min: 0,
    max: 59_999,
    defaultDoc: 'half of TONWATCH_BLOCK_INTERVAL_MS (0 with manual blocks)',
    default: (r) => (r.devnetManualBlocks ? 0 : Math.floor((r.blockIntervalMs as number) / 2)),
    doc: 'Devnet: how long each shard block is shown as a signed non-final block (the `confirmed` level) before the masterchain block that commits it; below TONWATCH_BLOCK_INTERVAL_MS with timed blocks.',
  }),
  provisional: bool({
    env: 'TONWATCH_PROVISIONAL',
    default: true,
    doc: 'Track finality levels before finalized: each external message\'s trace pending, confirmed, then finalized or invalidated (docs/FINALITY.md). Off: finalized only. The event log is the same either way.',
  }),
  provisionalMaxAgeSeconds: int({
    env: 'TONWATCH_PROVISIONAL_MAX_AGE_SECONDS',
    min: 1,
    max: 86_400,
    default: 300,
    doc: 'Bound on a trace\'s provisional life: one neither finalized nor invalidated this long after it was first seen is invalidated with reason `expired`.',
  }),
  devnetControl: oneOf({
    env: 'TONWATCH_DEVNET_CONTROL',
    values: ['local', 'key', 'open'] as const,
    default: 'local',
    doc: 'Devnet: who may call the control API (`/devnet/*`: send, pay, blocks): `local` callers on this machine (loopback, not a page of another site) without a key and others with an admin key; `key` everyone with an admin key; `open` anyone.',
  }),
  // No default: off unless set.
  devnetLiteserverPort: int({
    env: 'TONWATCH_DEVNET_LITESERVER_PORT',
    min: 0,
    max: 65535,
    defaultDoc: 'unset: off',
    doc: 'Devnet: also serve the chain over the liteserver protocol (ADNL TCP) on this loopback port, 0 for a free one. The banner prints the port and the server\'s public key; `npm run tonwatch -- devnet global-config` prints a global.config.json for it.',
  }) as Setting<number | undefined>,
  devnetOverlayPort: int({
    env: 'TONWATCH_DEVNET_OVERLAY_PORT',
    min: 0,
    max: 65535,
    defaultDoc: 'unset: a free port',
    doc: 'Devnet, when its liteserver runs: the loopback UDP port of its DHT node and overlay member (TON\'s gossip protocol; the global config lists it in `dht.static_nodes`), which broadcasts every admitted external message to the public overlay of workchain 0.',
  }) as Setting<number | undefined>,
  replayRate: int({
    env: 'TONWATCH_REPLAY_RATE',
    min: 1,
    max: 1_000_000,
    default: 1000,
    doc: 'Replay chain source: transactions per second, spread over blocks every TONWATCH_BLOCK_INTERVAL_MS.',
  }),
  replayAccounts: int({
    env: 'TONWATCH_REPLAY_ACCOUNTS',
    min: 2,
    max: 1_000_000,
    default: 10_000,
    doc: 'Replay chain source: wallet accounts that send and receive (each also has a jetton wallet).',
  }),
  replayShares: {
    env: 'TONWATCH_REPLAY_SHARES',
    allowed: 'kind=share pairs (kinds jetton, comment, bounce; shares from 0 to 1 adding up to at most 1), comma-separated',
    default: 'jetton=0.3,comment=0.4,bounce=0.02',
    doc: 'Replay chain source: share of new traces that are jetton transfers, TON transfers with a comment, and bounces; the rest are plain TON transfers.',
    parse: (raw: string) => (parseShares(raw) ? raw : undefined),
  } satisfies Setting<string>,
  replayStart: {
    env: 'TONWATCH_REPLAY_START',
    allowed: 'a time in milliseconds since 1970-01-01 UTC (an integer)',
    defaultDoc: 'unset: when the process starts',
    parse: (raw: string) => (/^\d{1,15}$/.test(raw) ? Number(raw) : undefined),
    doc: 'Replay chain source: when its first block was made. A process started later makes the blocks due since then at once, so cluster nodes given the same value follow the same chain at the same height.',
  } satisfies Setting<number | undefined>,
  eventRetentionSeconds: int({
    env: 'TONWATCH_EVENT_RETENTION_SECONDS',
    min: 60,
    max: 365 * 86_400,
    default: 3600,
    doc: 'How long the event log keeps history for resuming streams, in seconds.',
  }),
  bodyLimitBytes: int({
    env: 'TONWATCH_BODY_LIMIT_BYTES',
    min: KiB,
    max: 100 * MiB,
    default: MiB,
    doc: 'Largest accepted request body, in bytes (larger bodies get 413).',
  }),
  headersTimeoutMs: int({
    env: 'TONWATCH_HEADERS_TIMEOUT_MS',
    min: 100,
    max: 600_000,
    default: 10_000,
    doc: 'Longest time a client may take to send the request line and headers, in milliseconds; then 408 and the connection is closed.',
  }),
  requestTimeoutMs: int({
    env: 'TONWATCH_REQUEST_TIMEOUT_MS',
    min: 100,
    max: 3_600_000,
    default: 30_000,
    doc: 'Longest time a client may take to send a whole request (headers and body), in milliseconds; then 408 and the connection is closed. Streams are not limited once their request is in.',
  }),
  bodyTimeoutMs: int({
    env: 'TONWATCH_BODY_TIMEOUT_MS',
    min: 100,
    max: 3_600_000,
    default: 10_000,
    doc: 'Longest silence while a request body arrives, in milliseconds; then 408 and the connection is closed.',
  }),
  clientConnectionLimit: int({
    env: 'TONWATCH_CLIENT_CONNECTION_LIMIT',
    min: 0,
    max: 1_000_000,
    default: 1000,
    doc: 'Requests in progress (open streams included) one client address may hold, with or without an API key; more get 429. /healthz, /readyz and /metrics are never counted or refused. 0 means no limit.',
  }),
  corsOrigins: origins({
    env: 'TONWATCH_CORS_ORIGINS',
    default: ['*'],
    defaultDoc: '`*`',
    doc: 'Browser origins allowed to call the APIs. `*` allows any origin without cookies (keys travel in headers), `none` sends no CORS headers.',
  }),
  logLevel: oneOf({
    env: 'LOG_LEVEL',
    values: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const,
    default: 'info',
    doc: 'Log level of the JSON (pino) logs on stdout.',
  }),
  trustProxy: bool({
    env: 'TONWATCH_TRUST_PROXY',
    default: false,
    doc: 'Take the client address from X-Forwarded-For (set when behind a reverse proxy; it drives per-client limits).',
  }),
  streamAnonLimit: int({
    env: 'TONWATCH_STREAM_ANON_LIMIT',
    min: 0,
    max: 100_000,
    default: 5,
    doc: 'Concurrent streams (SSE/WebSocket) one client address may hold without an API key; 0 requires a key.',
  }),
  wsMaxAccounts: int({
    env: 'TONWATCH_WS_MAX_ACCOUNTS',
    min: 1,
    max: 1_000_000,
    default: 1000,
    doc: 'Accounts one WebSocket connection may subscribe to, for transactions and for traces each.',
  }),
  streamBufferBytes: int({
    env: 'TONWATCH_STREAM_BUFFER_BYTES',
    min: 16 * KiB,
    max: 256 * MiB,
    default: MiB,
    doc: 'Bytes a stream (SSE/WebSocket) may have waiting to be sent; a client that lets more pile up is closed as a slow consumer.',
  }),
  streamWriteTimeoutMs: int({
    env: 'TONWATCH_STREAM_WRITE_TIMEOUT_MS',
    min: 1000,
    max: 600_000,
    default: 30_000,
    doc: 'A stream whose peer accepts no data (or answers no ping) for this long, in milliseconds, is dropped.',
  }),
  streamQuietGc: bool({
    env: 'TONWATCH_STREAM_QUIET_GC',
    default: true,
    doc: "Collect V8's young generation 100 ms after a block's fan-out when the next block would fill it, instead of V8 collecting it right after the fan-out while clients read; false leaves it to V8.",
  }),
  indexerBackfillConcurrency: int({
    env: 'TONWATCH_INDEXER_BACKFILL_CONCURRENCY',
    min: 1,
    max: 256,
    default: 4,
    doc: 'Deposit indexer: tracked addresses whose history is backfilled at the same time (each walk asks the chain for 16 transactions at a time).',
  }),
  indexerDnsRoot: {
    env: 'TONWATCH_DNS_ROOT',
    allowed: 'an address (raw or user-friendly)',
    defaultDoc: "unset: the network profile's — the devnet's own root on the devnet, mainnet's root (config param 4) on mainnet, none on testnet",
    // stored as the raw address
    parse: (raw: string) => tryParseAccountId(raw) ?? undefined,
    doc: 'Deposit indexer: root DNS resolver for `/resolve/{domain}` — config parameter 4 of the network (set it for testnet).',
  } satisfies Setting<string | undefined>,
  webhookAllowLoopback: bool({
    env: 'TONWATCH_WEBHOOK_ALLOW_LOOPBACK',
    default: (c) => c.chain === 'devnet',
    defaultDoc: '`true` on the devnet, `false` otherwise',
    doc: 'Allow webhook endpoints on loopback and private addresses (local development; keep off in production).',
  }),
  webhookTimeoutMs: int({
    env: 'TONWATCH_WEBHOOK_TIMEOUT_MS',
    min: 100,
    max: 300_000,
    default: 15_000,
    doc: 'Timeout of one webhook delivery attempt, in milliseconds.',
  }),
  webhookSecretOverlapSeconds: int({
    env: 'TONWATCH_WEBHOOK_SECRET_OVERLAP_SECONDS',
    min: 0,
    max: 30 * 86_400,
    default: 86_400,
    doc: 'After generate-new-token, how long the previous signing secret keeps signing deliveries alongside the new one, in seconds.',
  }),
  webhookHistoryDays: int({
    env: 'TONWATCH_WEBHOOK_HISTORY_DAYS',
    min: 1,
    max: 365,
    default: 7,
    doc: 'How long completed webhook deliveries (for redelivery) and failure logs are kept, in days.',
  }),
  webhookConcurrency: int({
    env: 'TONWATCH_WEBHOOK_CONCURRENCY',
    min: 1,
    max: 10_000,
    default: 512,
    doc: 'Webhook delivery attempts in flight at once (to one endpoint: at most 64, one per connection, or 512 to an endpoint answering within 100 ms on average while the sender thread is on).',
  }),
  webhookSenderThread: bool({
    env: 'TONWATCH_WEBHOOK_SENDER_THREAD',
    default: () => true,
    defaultDoc: '`true`',
    doc: 'Write and read webhook deliveries\' sockets in a worker thread; the main thread keeps the outbox and builds the signed requests (`false`: everything on the main thread).',
  }),
  // ---- workers on one PostgreSQL (webhook delivery, indexer backfills; cluster-delivery) ----
  workerLeaseSeconds: int({
    env: 'TONWATCH_WORKER_LEASE_SECONDS',
    min: 2,
    max: 3600,
    default: (c) => Math.max(60, Math.ceil((3 * (c.webhookTimeoutMs as number) + 1000) / 1000)),
    defaultDoc: '`60`, or 3 × `TONWATCH_WEBHOOK_TIMEOUT_MS` + 1 s when that is longer',
    doc: 'PostgreSQL, many workers: how long an indexer backfill claim lasts without renewal, in seconds (renewed every quarter of it; a killed worker\'s jobs are resumed this long after it died), and how long a webhook worker keeps an ordering key with nothing to deliver (a killed webhook worker\'s keys move within seconds, through its liveness lock). At least 3 × TONWATCH_WEBHOOK_TIMEOUT_MS + 1 s.',
  }),
  readyMaxDeliveryLagSeconds: int({
    env: 'TONWATCH_READY_MAX_DELIVERY_LAG_SECONDS',
    min: 0,
    max: 86_400,
    default: 30,
    doc: '/readyz fails while a due webhook delivery to an online endpoint (one answering, with room for more attempts) has waited longer than this for its attempt to start, in seconds: a stalled worker. Slow, failing and suspended endpoints are reported, never failing it. 0 never fails.',
  }),
  webhookMaxPerKey: int({
    env: 'TONWATCH_WEBHOOK_MAX_PER_KEY',
    min: 1,
    max: 100_000,
    default: 100,
    doc: 'Webhooks one API key may create.',
  }),
  webhookMaxAccounts: int({
    env: 'TONWATCH_WEBHOOK_MAX_ACCOUNTS',
    min: 1,
    max: 10_000_000,
    default: 100_000,
    doc: 'Accounts one webhook may follow.',
  }),
  webhookOpcodeMaxPerMinute: int({
    env: 'TONWATCH_WEBHOOK_OPCODE_MAX_PER_MINUTE',
    min: 1,
    max: 10_000_000,
    default: 6000,
    doc: 'Messages one opcode subscription may match per minute; beyond that it is disabled (status disabled, with the reason) until subscribed again.',
  }),
  // Cluster mode (docs/DEPLOYMENT.md): several processes on one PostgreSQL database.
  roles: {
    env: 'TONWATCH_ROLES',
    default: [...ROLES],
    defaultDoc: '`follower,api,worker`',
    allowed: `a comma-separated list of ${ROLES.join(', ')}`,
    parse: (raw: string): Role[] | undefined => {
      const list = raw.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
      if (list.length === 0 || !list.every((r): r is Role => (ROLES as readonly string[]).includes(r))) return undefined;
      return ROLES.filter((r) => list.includes(r));
    },
    doc: 'What this process does: `follower` (chain source → event log, and the singletons — invoice expiry, the live consumers of the indexer, webhooks and invoices — on the elected leader only), `api` (HTTP APIs, streams, console), `worker` (webhook delivery, indexer backfills). A subset needs TONWATCH_CLUSTER.',
  } satisfies Setting<Role[]>,
  cluster: bool({
    env: 'TONWATCH_CLUSTER',
    default: false,
    doc: 'Run as one of several processes on one PostgreSQL database (DATABASE_URL): one leader follows the chain, every process serves the roles it holds. Off: this process must be the only one on its database and refuses to start beside another.',
  }),
  usdtMaster: {
    env: 'TONWATCH_USDT_MASTER',
    default: 'auto',
    allowed: '`auto` or a jetton master address (raw or user-friendly)',
    // stored as the raw address, so every later comparison is between raw forms
    parse: (raw: string) => (raw.toLowerCase() === 'auto' ? 'auto' : (tryParseAccountId(raw) ?? undefined)),
    doc: 'Invoices: the USDT jetton master whose transfers pay USDT invoices. `auto`: the devnet\'s own USDT on the devnet, the real mainnet master (EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs) otherwise; testnet needs an address.',
  } satisfies Setting<string>,
  invoiceDetectedWebhook: bool({
    env: 'TONWATCH_INVOICE_DETECTED_WEBHOOK',
    default: false,
    doc: 'Invoices: also send an `invoice.detected` webhook when a payment to a pending invoice is first seen before it is final (pending or confirmed; docs/INVOICES.md). A tonwatch extension, not a status change: the invoice is still paid only when finalized. Needs TONWATCH_PROVISIONAL.',
  }),
} satisfies Record<string, Setting<any>>;

type Settings = typeof settings;
type ValueOf<S> = S extends Setting<infer T> ? T : never;

/** The validated configuration every component receives. */
export type Config = { readonly [K in keyof Settings]: ValueOf<Settings[K]> };
export type ConfigKey = keyof Config;
export type ConfigSource = 'env' | 'file' | 'default';
