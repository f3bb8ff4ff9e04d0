// Route schemas of the streaming endpoints: the OpenAPI description at /docs. Validation results are
// only attached (attachValidation), because the streams answer bad parameters with the original's
// plain-text messages (params.ts), not with the JSON error shape; every other error before the stream
// is plain text too (sse.ts).
import type { StreamKind } from './params.js';

const tags = ['streaming'];

const listOrString = (description: string) => ({
  description,
  anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
});

const accountsDoc: Record<StreamKind, string> = {
  transactions: 'Comma-separated account ids (raw `0:…` or user-friendly), or `ALL`. Required.',
  traces: 'Comma-separated account ids, or `ALL`. Required.',
  mempool: 'Optional comma-separated account ids: then only messages whose emulated trace involves one of them, with `involved_accounts`.',
  blocks: '',
};

const summaries: Record<StreamKind, string> = {
  transactions: 'Stream finalized transactions of accounts',
  traces: 'Stream completed traces involving accounts',
  mempool: 'Stream pending external messages',
  blocks: 'Stream new blocks',
};

const payloads: Record<StreamKind, string> = {
  transactions: '`{"account_id":"0:…","lt":123,"tx_hash":"…"}`',
  traces: '`{"accounts":["0:…"],"hash":"<root transaction hash>"}`',
  mempool: '`{"boc":"<base64 message>"}`, plus `"involved_accounts":[…]` with an accounts filter',
  blocks: '`{"workchain":0,"shard":"8000000000000000","seqno":1,"root_hash":"…","file_hash":"…"}`',
};

function properties(kind: StreamKind, where: 'query' | 'body'): Record<string, unknown> {
  const value = (description: string) => (where === 'query' ? { type: 'string', description } : listOrString(description));
  const props: Record<string, unknown> = {};
  if (kind !== 'blocks') {
    props.accounts = value(accountsDoc[kind]);
    props.operations = value(
      "Optional comma-separated operations: any operation name of tongo's message ABI, as TonAPI accepted (JettonTransfer, NftTransfer, TextComment, …; case-insensitive) or `0x` + 8 hex digits, matched against the first 32 bits of message bodies: a transaction's inbound message; a trace: the inbound message of any of its transactions; a pending message: its own body or any message of its emulated trace.",
    );
  } else {
    props.workchain = {
      ...(where === 'query' ? { type: 'string' } : { anyOf: [{ type: 'integer' }, { type: 'string' }] }),
      description: 'Optional workchain, -1 or 0; all workchains when omitted.',
    };
  }
  props.heartbeat = { type: 'string', enum: ['data'], description: '`data`: heartbeats carry `data: {}` so that browser EventSource clients see them.' };
  props.last_event_id = {
    type: 'string',
    description:
      'Resume after this event id on a first connect (the `Last-Event-ID` header wins). Missed events are replayed from retained history; an id older than that, or one this server never issued (another server\'s), yields an `event: gap` first.',
  };
  if (where === 'query') props.token = { type: 'string', description: 'API key (instead of the Authorization header).' };
  return props;
}

/** Every error before the stream is the message alone in plain text (compat.md §2). */
const plainText = (description: string) => ({ description: `${description}; plain text, the message alone`, content: { 'text/plain': { schema: { type: 'string' } } } });

export function sseRouteSchema(kind: StreamKind, where: 'query' | 'body'): Record<string, unknown> {
  const params = { type: 'object', properties: properties(kind, where) };
  return {
    tags,
    summary: `${summaries[kind]}${where === 'body' ? ' (parameters as a JSON body)' : ''}`,
    description:
      `Server-sent events. Each notification is \`event: message\\nid: <event id>\\ndata: <JSON>\\n\\n\` with data ${payloads[kind]}. ` +
      'A `heartbeat` event (no data line) is sent on connect and after every 5 s of silence. Event ids are positions in the chain ' +
      '(masterchain seqno × 1,000,000 + index): the same on every node and after a restart. A client that stops reading is sent ' +
      '`event: error` with `{"error":"slow consumer"}` and disconnected. See docs/STREAMING.md.',
    ...(where === 'query' ? { querystring: params } : { body: params }),
    headers: {
      type: 'object',
      properties: { 'last-event-id': { type: 'string', description: 'Resume after this event id (sent by EventSource on reconnect).' } },
    },
    response: {
      200: {
        description: 'An endless text/event-stream',
        content: { 'text/event-stream': { schema: { type: 'string' } } },
      },
      400: plainText("Bad parameter, e.g. `failed to parse 'accounts' parameter in query`"),
      401: plainText('An unknown or revoked key, or the limit of streams without a key reached (`…limit of streaming connections…`)'),
      403: plainText('The key lacks the streaming scope'),
      ...(where === 'body' ? { 415: plainText('A body that is not `application/json`') } : {}),
      429: plainText('Too many requests in progress from this client address'),
    },
  };
}

export const websocketRouteSchema = {
  tags,
  summary: 'JSON-RPC 2.0 streaming over a WebSocket',
  description:
    'Upgrade to a WebSocket, then send `{"id":1,"jsonrpc":"2.0","method":"subscribe_account","params":["0:…;operations=JettonTransfer"]}`. ' +
    'Methods: subscribe_account, unsubscribe_account, subscribe_trace, unsubscribe_trace, subscribe_mempool (params none, ' +
    '`["accounts=a,b"]` or a bare string), unsubscribe_mempool, subscribe_block (`["workchain=-1"]`), unsubscribe_block. Replies echo ' +
    'id, jsonrpc and method and carry a string `result`. Notifications: `{"jsonrpc":"2.0","method":"account_transaction"|"trace"|' +
    '"mempool_message"|"block","params":{…}}`. Resume: add an item `last_event_id=<id>` to a subscribe; connect with ' +
    '`?event_ids=true` to get `event_id` in notifications. Up to 1000 accounts per connection for transactions and for traces ' +
    '(configurable). See docs/STREAMING.md. A plain GET without the upgrade is answered 426.',
  querystring: {
    type: 'object',
    properties: {
      token: { type: 'string', description: 'API key (browsers cannot set the Authorization header on a WebSocket).' },
      event_ids: { type: 'string', description: '`true` or `1`: add `"event_id"` to every notification.' },
    },
  },
  response: {
    101: { description: 'Switching Protocols: the JSON-RPC session starts' },
    426: { description: 'Not a WebSocket upgrade request', type: 'object', properties: { error: { type: 'string' } } },
  },
};
