// Turns recorded templates into plans the generator can replay with plain object literals: roles
// become indexes into a trace's bound accounts, message links become slots, and everything that
// does not change between replays (phases, fees, bodies without accounts) is shared and frozen.
import { bocRoot } from '../cell/index.js';
import type { DecodedBody, MessageModel, SourcedTransaction } from '../model.js';
import { ROLES, type Role, type TemplateKind, type TraceTemplate } from './templates.js';

/** How a role gets its account: an owner wallet, the jetton wallet of an owner, or an address without code. */
export type RoleKind = Role | 'relay';

export interface CompiledMessage {
  /** Where the trace keeps this message once created (its creator and consumer share the object). */
  slot: number;
  tpl: MessageModel;
  /** Role indexes; -1 for null. */
  source: number;
  destination: number;
  /** Fields of the decoded body that hold accounts, with their role; null when none do. */
  decodedRoles: Array<[string, number]> | null;
  /** Position among the creating transaction's out messages (created_lt = lt + 1 + index). */
  outIndex: number;
}

export interface CompiledTransaction {
  role: number;
  tpl: SourcedTransaction;
  /** The external root message, built with this transaction; null for internal inbound messages. */
  external: CompiledMessage | null;
  /** Slot of the inbound internal message. */
  inSlot: number;
  outs: CompiledMessage[];
}

export interface CompiledTemplate {
  kind: TemplateKind;
  roles: RoleKind[];
  /** Transactions by hop: hop h lands h blocks after the trace's first block. */
  hops: CompiledTransaction[][];
  transactionCount: number;
  slots: number;
  rootMessageBoc: string;
}

/** A TON transfer of `depth` transactions: the recipient forwards the payment to a relay, and so on. */
export function deepen(template: TraceTemplate, depth: number): TraceTemplate {
  if (depth <= 2 || (template.kind !== 'ton_transfer' && template.kind !== 'ton_comment')) return template;
  const [first, last] = template.transactions;
  const sent = first!.tx.outMessages[0]!;
  const role = (k: number) => (k === 1 ? '@recipient' : `@relay${k}`);
  const transactions = [first!];
  for (let k = 1; k < depth; k++) {
    const final = k === depth - 1;
    transactions.push({
      hop: k,
      tx: {
        ...last!.tx,
        account: role(k),
        hash: `#t${k}`,
        inMessage: { ...sent, hash: `#m${k}`, source: role(k - 1), destination: role(k) },
        outMessages: final ? [] : [{ ...sent, hash: `#m${k + 1}`, source: role(k), destination: role(k + 1) }],
        // a forwarding hop sends one message, as the sender's transaction does
        actionPhase: final ? last!.tx.actionPhase : first!.tx.actionPhase,
      },
    });
  }
  return { ...template, transactions };
}

export function compileTemplate(template: TraceTemplate): CompiledTemplate {
  const roleNames: string[] = [];
  const roles: RoleKind[] = [];
  const roleIndex = (placeholder: string | null, where: string): number => {
    if (placeholder === null) return -1;
    const name = placeholder.startsWith('@') ? placeholder.slice(1) : '';
    let i = roleNames.indexOf(name);
    if (i >= 0) return i;
    const kind: RoleKind | null = (ROLES as readonly string[]).includes(name) ? (name as Role) : /^relay\d+$/.test(name) ? 'relay' : null;
    if (!kind) throw new Error(`replay template ${template.kind}: ${where} is ${JSON.stringify(placeholder)}, not an account role`);
    roleNames.push(name);
    roles.push(kind);
    return roles.length - 1;
  };
  const slotOf = (hash: string) => Number(hash.slice(2));
  let slots = 0;
  const message = (m: MessageModel, outIndex: number, where: string): CompiledMessage => {
    const slot = slotOf(m.hash);
    slots = Math.max(slots, slot + 1);
    const decodedRoles: Array<[string, number]> = [];
    for (const [key, value] of Object.entries(m.decoded)) {
      if (typeof value === 'string' && value.startsWith('@')) decodedRoles.push([key, roleIndex(value, `${where}.decoded.${key}`)]);
    }
    return {
      slot,
      // the body's hash once per template message (a decoder gives it with the message)
      tpl: deepFreeze({ ...m, bodyHash: bocRoot(Buffer.from(m.bodyBoc, 'base64')).hashHex() }),
      source: roleIndex(m.source, `${where}.source`),
      destination: roleIndex(m.destination, `${where}.destination`),
      decodedRoles: decodedRoles.length > 0 ? decodedRoles : null,
      outIndex,
    };
  };

  const hops: CompiledTransaction[][] = [];
  template.transactions.forEach(({ hop, tx }, i) => {
    const where = `transactions[${i}]`;
    const inbound = tx.inMessage;
    if (!inbound) throw new Error(`replay template ${template.kind}: ${where} has no inbound message`);
    const external = inbound.type === 'external-in' ? message(inbound, 0, `${where}.inMessage`) : null;
    if (!external) slots = Math.max(slots, slotOf(inbound.hash) + 1);
    const compiled: CompiledTransaction = {
      role: roleIndex(tx.account, `${where}.account`),
      tpl: deepFreeze({ ...tx }),
      external,
      inSlot: slotOf(inbound.hash),
      outs: tx.outMessages.map((m, j) => message(m, j, `${where}.outMessages[${j}]`)),
    };
    (hops[hop] ??= []).push(compiled);
  });
  for (let h = 0; h < hops.length; h++) hops[h] ??= [];
  return {
    kind: template.kind,
    roles,
    hops,
    transactionCount: template.transactions.length,
    slots,
    rootMessageBoc: template.rootMessageBoc,
  };
}

/** Builds the decoded body of a re-addressed message: the template's, with accounts bound. */
export function bindDecoded(m: CompiledMessage, table: readonly string[], accounts: readonly number[]): DecodedBody {
  const decoded: Record<string, unknown> = { ...m.tpl.decoded };
  for (const [key, role] of m.decodedRoles!) decoded[key] = table[accounts[role]!]!;
  return decoded as unknown as DecodedBody;
}

/** Shared parts are read-only: a consumer writing into them would change every replayed copy. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
