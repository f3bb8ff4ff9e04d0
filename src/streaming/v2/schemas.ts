// Route schemas of the Streaming v2 endpoints: the OpenAPI description at /docs. Validation results are
// only attached: a bad subscription is answered with the anchor's `{"error": …}` texts (request.ts).
const tags = ['streaming v2'];
const strings = (description: string) => ({ type: 'array', items: { type: 'string' }, description });

const subscription = {
  type: 'object',
  properties: {
    types: strings('Required: `transactions`, `actions`, `trace`, `trace_invalidated`, `account_state_change`, `jettons_change`.'),
    addresses: strings('Addresses in any form; required unless `types` is only `trace`.'),
    trace_external_hash_norms: strings('Normalised external message hashes (base64 or hex); required with `trace`.'),
    min_finality: { type: 'string', enum: ['pending', 'confirmed', 'finalized'], description: 'Default `finalized`.' },
    include_address_book: { type: 'boolean' },
    include_metadata: { type: 'boolean' },
    action_types: strings('Filter for `actions`.'),
    supported_action_types: strings('Default `["latest"]` (or the `X-Actions-Version` header).'),
    id: { type: 'string', description: 'Echoed in the `connected` frame and in errors.' },
    last_event_id: { type: 'string', description: 'Resume after this event id (tonwatch extension; the `Last-Event-ID` header wins).' },
  },
};

export const v2SseSchema = {
  tags,
  summary: 'Streaming v2 over SSE: the JSON body is the subscription',
  description:
    'TON Center / TonAPI Streaming API v2. Answers `text/event-stream`: `event: connected` `{"status":"subscribed"}`, then `event: event` notifications, each with an `id:` to resume from (`Last-Event-ID`), and `: keepalive` every 15 s. docs/STREAMING.md, Part 1.',
  // the fields, documented but not validated here: a schema would coerce them before request.ts sees them
  'x-subscription': subscription,
};

export const v2WsSchema = {
  tags,
  summary: 'Streaming v2 over WebSocket: operations subscribe, unsubscribe, ping',
  description:
    'Upgrade to a WebSocket, then send JSON operations `{"operation":"subscribe", …}` (replaces the whole subscription; `last_event_id` resumes), `unsubscribe`, `ping`, each with an optional `id` echoed in the reply. docs/STREAMING.md, Part 1.',
};
