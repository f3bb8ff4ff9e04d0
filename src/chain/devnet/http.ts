// The devnet control API (exists only on the devnet): an encapsulated Fastify plugin with a
// TypeBox schema on every route. Handlers call DevnetControl; its 400s name the field, and
// Fastify's own validation errors are mapped by the app's error handler (toErrorResponse).
import type { FastifyContextConfig, FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { BlockHeader } from '../model.js';
import { ChainRejectedError } from '../source.js';
import { ApiError } from '../../errors.js';
import type { DevnetControl } from './control.js';
import type { DevnetLiteServer } from './liteserver.js';

export interface DevnetRoutesOptions {
  control: DevnetControl;
  /** Route config for every route, e.g. `{ auth: { scope: 'admin' } }` (src/http/auth.ts); none by default: a local devnet. */
  routeConfig?: FastifyContextConfig;
  /** The devnet's liteserver when it runs (TONWATCH_DEVNET_LITESERVER_PORT), for GET /devnet/liteserver. */
  liteserver?: () => DevnetLiteServer | null;
}

const Amount = Type.String({ pattern: '^[0-9]{1,40}$', description: 'Integer amount in minimal units (nanoton or jetton units)' });
const WalletName = Type.String({ minLength: 1, maxLength: 64, description: 'Devnet wallet name, e.g. alice' });
const Target = Type.String({ minLength: 1, maxLength: 128, description: 'Wallet name or address in any form' });
const Jetton = Type.String({ minLength: 1, maxLength: 128, description: 'Devnet jetton key (usdt, gram, fake-usdt) or master address' });
const Comment = Type.String({ maxLength: 1000, description: 'Text comment' });
const Boc = Type.String({ minLength: 1, maxLength: 65536, description: 'Base64 BoC of one cell' });

const ErrorBody = Type.Object(
  { error: Type.String(), field: Type.Optional(Type.String()), error_code: Type.Optional(Type.String()) },
  { additionalProperties: true },
);
const MessageSent = Type.Object({ message_hash: Type.String({ description: 'Hash of the external message (trace root)' }) });
const sent = <P extends Record<string, ReturnType<typeof Type.String>>>(extra: P) =>
  Type.Object({ message_hash: Type.String(), ...extra });
const Header = Type.Object({
  workchain: Type.Integer(),
  shard: Type.String(),
  seqno: Type.Integer(),
  root_hash: Type.String(),
  file_hash: Type.String(),
  gen_utime: Type.Integer(),
  start_lt: Type.String(),
  end_lt: Type.String(),
  mc_seqno: Type.Integer(),
});

const Validators = Type.Object({
  set: Type.Integer({ description: 'Index of the set (0 from the zero state, +1 per rotation)' }),
  catchain_seqno: Type.Integer(),
  set_hash: Type.Integer({ description: 'gen_validator_list_hash_short of the blocks this set signs' }),
  public_keys: Type.Array(Type.String(), { description: 'ed25519 public keys (hex) in signing order' }),
  rotation_pending: Type.Boolean(),
});

const SendBody = Type.Object(
  {
    from: WalletName,
    to: Target,
    amount: Amount,
    comment: Type.Optional(Comment),
    payload_boc: Type.Optional(Boc),
    bounce: Type.Optional(Type.Boolean()),
    batch: Type.Optional(Type.Array(Type.Object({ to: Target, amount: Amount, comment: Type.Optional(Comment) }, { additionalProperties: false }), {
      maxItems: 254, description: 'Further transfers in the same external message (a payout batch, as an exchange sends); a v4 wallet carries 4 in all, a v5r1 wallet 255, the highload wallet (highload-v2, one external under a query id) 254',
    })),
  },
  { additionalProperties: false },
);
const JettonSendBody = Type.Object(
  {
    from: WalletName,
    jetton: Jetton,
    to: Target,
    amount: Amount,
    comment: Type.Optional(Comment),
    comment_in_ref: Type.Optional(Type.Boolean({ description: 'Comment in a ref (forward_payload bit 1) instead of inline' })),
    payload_boc: Type.Optional(Boc),
    forward_ton_amount: Type.Optional(Amount),
  },
  { additionalProperties: false },
);
const PayBody = Type.Object(
  {
    from: WalletName,
    link: Type.String({ minLength: 1, maxLength: 4096, description: 'ton://transfer/<address>?amount=…&text=…&bin=…&jetton=…&exp=…' }),
    ignore_expiry: Type.Optional(Type.Boolean({ description: 'Pay even after exp (wallet apps refuse)' })),
  },
  { additionalProperties: false },
);
const BounceBody = Type.Object(
  { from: WalletName, to: Type.Optional(Target), amount: Type.Optional(Amount) },
  { additionalProperties: false },
);
const FailedJettonBody = Type.Object({ from: WalletName, jetton: Jetton, to: Target }, { additionalProperties: false });
const ForgedInternalBody = Type.Object(
  { from: WalletName, jetton: Jetton, to: Target, amount: Type.Optional(Amount), comment: Type.Optional(Comment) },
  { additionalProperties: false },
);
const ForgedNotificationBody = Type.Object(
  { from: WalletName, to: Target, amount: Type.Optional(Amount), comment: Type.Optional(Comment), sender: Type.Optional(Target) },
  { additionalProperties: false },
);
const DeployBody = Type.Object({ from: WalletName, amount: Type.Optional(Amount) }, { additionalProperties: false });

const JettonBalance = Type.Object({
  key: Type.String(),
  symbol: Type.String(),
  decimals: Type.Integer(),
  master: Type.String(),
  wallet: Type.String(),
  balance: Type.String(),
});
const Wallet = Type.Object({
  name: Type.String(),
  version: Type.String(),
  address: Type.String(),
  friendly: Type.String(),
  status: Type.String(),
  balance: Type.String(),
  jettons: Type.Array(JettonBalance),
});

export function headerJson(h: BlockHeader): Static<typeof Header> {
  return {
    workchain: h.workchain,
    shard: h.shard,
    seqno: h.seqno,
    root_hash: h.rootHash,
    file_hash: h.fileHash,
    gen_utime: h.genUtime,
    start_lt: h.startLt.toString(),
    end_lt: h.endLt.toString(),
    mc_seqno: h.mcSeqno,
  };
}

/** The chain refusing a message is the caller's problem (400), except a full mempool (503). */
async function chainCall<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof ChainRejectedError) {
      throw new ApiError(err.code === 'mempool_full' ? 503 : 400, err.message, { error_code: err.code });
    }
    throw err;
  }
}

const errors = { 400: ErrorBody, 503: ErrorBody };

export async function devnetRoutes(fastify: FastifyInstance, opts: DevnetRoutesOptions): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { control } = opts;
  const config: FastifyContextConfig = opts.routeConfig ?? {};
  const tags = ['devnet'];

  app.get('/devnet/wallets', { config, schema: { tags, summary: 'Named devnet wallets with TON and jetton balances', response: { 200: Type.Array(Wallet) } } }, () =>
    control.wallets(),
  );

  app.get(
    '/devnet/info',
    {
      config,
      schema: {
        tags,
        summary: 'Devnet head, block interval, jettons and DNS',
        response: {
          200: Type.Object({
            head: Header,
            block_interval_ms: Type.Integer(),
            manual: Type.Boolean(),
            mempool_size: Type.Integer(),
            inflight_messages: Type.Integer(),
            jettons: Type.Array(
              Type.Object({ key: Type.String(), symbol: Type.String(), name: Type.String(), decimals: Type.Integer(), master: Type.String() }),
            ),
            dns: Type.Object({ root: Type.String(), zone: Type.String(), names: Type.Record(Type.String(), Type.String()) }),
          }),
        },
      },
    },
    async () => {
      const { chain, directory } = control;
      return {
        head: headerJson(await chain.getMasterchainHead()),
        block_interval_ms: chain.blockIntervalMs,
        manual: chain.manual,
        mempool_size: chain.mempoolSize,
        inflight_messages: chain.inflightCount,
        jettons: directory.jettons.map((j) => ({ key: j.key, symbol: j.symbol, name: j.name, decimals: j.decimals, master: j.masterId })),
        dns: { root: directory.dns.rootId, zone: directory.dns.zoneId, names: directory.dns.names },
      };
    },
  );

  app.post('/devnet/send', { config, schema: { tags, summary: 'Send TON from a devnet wallet', body: SendBody, response: { 200: MessageSent, ...errors } } }, (req) =>
    chainCall(() => control.send(req.body)),
  );

  app.post(
    '/devnet/jetton/send',
    { config, schema: { tags, summary: 'Send jettons from a devnet wallet', body: JettonSendBody, response: { 200: MessageSent, ...errors } } },
    (req) => chainCall(() => control.jettonSend(req.body)),
  );

  app.post(
    '/devnet/pay',
    { config, schema: { tags, summary: 'Pay a ton://transfer link as a wallet app does', body: PayBody, response: { 200: MessageSent, ...errors } } },
    (req) => chainCall(() => control.pay(req.body)),
  );

  app.post(
    '/devnet/blocks',
    { config, schema: { tags, summary: 'Produce a masterchain block now; returns the new head', response: { 200: Header } } },
    async () => headerJson(await control.produceBlock()),
  );

  app.get(
    '/devnet/liteserver',
    {
      config,
      schema: {
        tags,
        summary: 'The devnet liteserver (ADNL TCP) and a global.config.json for it; 404 when TONWATCH_DEVNET_LITESERVER_PORT is unset',
        response: {
          200: Type.Object({
            host: Type.String(),
            port: Type.Integer(),
            public_key: Type.String({ description: 'ed25519 public key, base64' }),
            global_config: Type.String({ description: 'global.config.json text (its int64 shard ids are exact; keep the text as it is)' }),
          }),
          404: ErrorBody,
        },
      },
    },
    () => {
      const server = opts.liteserver?.();
      if (!server) throw new ApiError(404, 'the devnet liteserver is off: set TONWATCH_DEVNET_LITESERVER_PORT', { error_code: 'liteserver_off' });
      return { ...server.address, public_key: server.publicKey.toString('base64'), global_config: server.globalConfig() };
    },
  );

  app.get(
    '/devnet/messages/:hash',
    {
      config,
      schema: {
        tags,
        summary: 'When an external message was admitted, put in a shard block (shown as a signed non-final block) and committed, by the devnet clock in ms; the newest 100,000 since the process started',
        params: Type.Object({ hash: Type.String({ pattern: '^[0-9a-fA-F]{64}$' }) }),
        response: {
          200: Type.Object({
            message_hash: Type.String(),
            admitted_at_ms: Type.Integer(),
            block: Type.Union([Type.Object({ workchain: Type.Integer(), shard: Type.String(), seqno: Type.Integer() }), Type.Null()]),
            produced_at_ms: Type.Union([Type.Integer(), Type.Null()]),
            committed_at_ms: Type.Union([Type.Integer(), Type.Null()]),
          }),
          404: ErrorBody,
        },
      },
    },
    (req) => {
      const t = control.chain.messageTimeline(req.params.hash);
      if (!t) throw new ApiError(404, `message ${req.params.hash} was not admitted by this devnet process`, { error_code: 'unknown_message' });
      return { message_hash: req.params.hash.toLowerCase(), admitted_at_ms: t.admittedAtMs, block: t.block, produced_at_ms: t.producedAtMs, committed_at_ms: t.committedAtMs };
    },
  );

  app.get('/devnet/validators', { config, schema: { tags, summary: 'The validators that sign the next masterchain block', response: { 200: Validators } } }, () =>
    control.validators(),
  );
  app.post(
    '/devnet/validators/rotate',
    {
      config,
      schema: {
        tags,
        summary: 'Rotate the validator set: the next masterchain block is a key block naming a new set, signed by the current one (a manual devnet makes it now)',
        response: { 200: Type.Intersect([Validators, Type.Object({ key_block: Type.Union([Header, Type.Null()]) })]) },
      },
    },
    async () => {
      const rotated = await control.rotateValidators();
      return { ...rotated, key_block: rotated.key_block ? headerJson(rotated.key_block) : null };
    },
  );

  app.post(
    '/devnet/candidates/lose',
    {
      config,
      schema: {
        tags,
        summary: 'Test mode: the next shard candidate with an external message is shown as confirmed, then loses to another block for its shard and seqno (its first external message is forgotten)',
        response: { 200: Type.Object({ armed: Type.Literal(true) }) },
      },
    },
    () => control.loseNextCandidate(),
  );

  app.post(
    '/devnet/scenarios/bounce',
    { config, schema: { tags, summary: 'Bounceable transfer to an address without code (it bounces)', body: BounceBody, response: { 200: sent({ to: Type.String() }), ...errors } } },
    (req) => chainCall(() => control.bounce(req.body)),
  );
  app.post(
    '/devnet/scenarios/failed-jetton-transfer',
    { config, schema: { tags, summary: 'Jetton transfer of more than the balance (the jetton wallet fails it)', body: FailedJettonBody, response: { 200: sent({ amount: Type.String() }), ...errors } } },
    (req) => chainCall(() => control.failedJettonTransfer(req.body)),
  );
  app.post(
    '/devnet/scenarios/forged-internal-transfer',
    { config, schema: { tags, summary: "internal_transfer sent straight to someone's jetton wallet (refused there)", body: ForgedInternalBody, response: { 200: sent({ target: Type.String({ description: 'The jetton wallet that got the forged message' }) }), ...errors } } },
    (req) => chainCall(() => control.forgedInternalTransfer(req.body)),
  );
  app.post(
    '/devnet/scenarios/forged-notification',
    { config, schema: { tags, summary: 'transfer_notification sent from a plain wallet (a fake jetton wallet)', body: ForgedNotificationBody, response: { 200: MessageSent, ...errors } } },
    (req) => chainCall(() => control.forgedNotification(req.body)),
  );
  app.post(
    '/devnet/scenarios/deploy',
    { config, schema: { tags, summary: 'Deploy a new wallet contract with an internal message', body: DeployBody, response: { 200: sent({ address: Type.String({ description: 'The deployed contract' }) }), ...errors } } },
    (req) => chainCall(() => control.deploy(req.body)),
  );
}
