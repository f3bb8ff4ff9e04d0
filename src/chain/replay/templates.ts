// Recorded trace shapes the replay source re-addresses. A template is one real devnet trace in
// which every account is replaced by a role (`@sender`, `@recipient`…) and every transaction and
// message hash by a link (`#t0`, `#m1`…), so the same shape can be re-addressed any number of
// times. scripts/record-replay-templates.ts writes them; this module reads and checks them.
import { readFileSync } from 'node:fs';
import type { SourcedTransaction } from '../model.js';

export const TEMPLATE_KINDS = ['ton_transfer', 'ton_comment', 'jetton_transfer', 'bounce'] as const;
export type TemplateKind = (typeof TEMPLATE_KINDS)[number];

/** Who an account is in a trace; jetton wallets belong to the owner of the same side. */
export const ROLES = ['sender', 'recipient', 'senderJettonWallet', 'recipientJettonWallet', 'nobody'] as const;
export type Role = (typeof ROLES)[number];

export interface TemplateTransaction {
  /** Blocks after the trace's first block (one hop per block, as on the real chain). */
  hop: number;
  /** The transaction with roles and links in place of accounts and hashes. */
  tx: SourcedTransaction;
}

export interface TraceTemplate {
  kind: TemplateKind;
  /** What was done on the devnet to record it. */
  recordedFrom: string;
  /** Standard base64 BoC of the external message that started the trace (for pending messages). */
  rootMessageBoc: string;
  transactions: TemplateTransaction[];
}

export interface TemplateFile {
  /** How the file was made (command and date). */
  recorded: string;
  templates: TraceTemplate[];
}

export const DEFAULT_TEMPLATES_PATH = new URL('../../../test/fixtures/replay/templates.json', import.meta.url);

const BIGINT_TAG = '$bigint';

/** JSON with bigints kept exact as `{"$bigint": "123"}`. */
export function templatesToJson(file: TemplateFile): string {
  return JSON.stringify(file, (_key, value) => (typeof value === 'bigint' ? { [BIGINT_TAG]: value.toString() } : value), 1);
}

export function templatesFromJson(text: string): TemplateFile {
  const parsed = JSON.parse(text, (_key, value) => {
    if (value && typeof value === 'object' && !Array.isArray(value) && typeof value[BIGINT_TAG] === 'string') {
      return BigInt(value[BIGINT_TAG]);
    }
    return value;
  }) as TemplateFile;
  checkTemplates(parsed);
  return parsed;
}

export function loadTemplates(path: string | URL = DEFAULT_TEMPLATES_PATH): TemplateFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`replay templates: cannot read ${String(path)} (${(err as NodeJS.ErrnoException).code ?? err}); record them with scripts/record-replay-templates.ts`);
  }
  return templatesFromJson(text);
}

/** Placeholders: `@role` for an account, `#t<n>` for a transaction hash, `#m<n>` for a message hash. */
export function roleOf(placeholder: string | null, where: string): Role {
  const role = placeholder?.startsWith('@') ? placeholder.slice(1) : null;
  if (!role || !(ROLES as readonly string[]).includes(role)) {
    throw new Error(`replay templates: ${where} must be an account role (${ROLES.map((r) => '@' + r).join(', ')}), got ${JSON.stringify(placeholder)}`);
  }
  return role as Role;
}

/** A file someone edited by hand fails here, naming the template and field, not mid-benchmark. */
function checkTemplates(file: TemplateFile): void {
  if (!file || !Array.isArray(file.templates) || file.templates.length === 0) {
    throw new Error('replay templates: the file holds no "templates" array');
  }
  for (const kind of TEMPLATE_KINDS) {
    if (!file.templates.some((t) => t.kind === kind)) throw new Error(`replay templates: no template of kind ${kind}`);
  }
  for (const t of file.templates) {
    const where = `template ${t.kind}`;
    if (!Array.isArray(t.transactions) || t.transactions.length === 0) throw new Error(`replay templates: ${where} has no transactions`);
    if (typeof t.rootMessageBoc !== 'string') throw new Error(`replay templates: ${where}.rootMessageBoc must be a base64 string`);
    const root = t.transactions[0]!;
    if (root.hop !== 0 || root.tx.inMessage?.type !== 'external-in') {
      throw new Error(`replay templates: ${where} must start with an external message at hop 0`);
    }
    t.transactions.forEach(({ hop, tx }, i) => {
      const at = `${where}.transactions[${i}]`;
      if (!Number.isInteger(hop) || hop < 0) throw new Error(`replay templates: ${at}.hop must be an integer ≥ 0`);
      roleOf(tx.account, `${at}.tx.account`);
      if (typeof tx.lt !== 'bigint') throw new Error(`replay templates: ${at}.tx.lt must be a bigint`);
      for (const m of [tx.inMessage, ...tx.outMessages]) {
        if (m && !/^#m\d+$/.test(m.hash)) throw new Error(`replay templates: ${at} has a message whose hash is not a link (#m<n>)`);
      }
    });
  }
}
