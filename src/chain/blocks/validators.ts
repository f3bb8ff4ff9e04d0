// Validator keys of a chain tonwatch builds (the devnet's own validators, the synthetic test chains): ed25519
// keys derived from a label, the config cells naming them — a validator set (param 34), a catchain config
// (param 28), a config dictionary — and the ordinary signature set they put on a masterchain block.
// The node's rules (who signs, the set hash) come from validators/, shared with the checker (liteserver/trust).
import { createHash, createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';
import { beginCell, Dictionary, type Cell } from '@ton/core';
import type { BlockIdExt, Signature, SignatureSet } from '../liteserver/tl/lite-types.js';
import { blockIdPayload, nodeIdOf } from '../validators/payloads.js';
import { mainValidators, validatorSetHash, type CatchainConfig, type ValidatorDescr } from '../validators/set.js';

/** DER prefix of an ed25519 PKCS#8 private key around its 32-byte seed. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export interface ValidatorKey {
  /** Dictionary index in the validator set. */
  index: number;
  privateKey: KeyObject;
  publicKey: Buffer;
  /** Node id (sha256 of TL `pub.ed25519`), hex. */
  nodeId: string;
  weight: bigint;
  adnlAddr: Buffer;
}

/** `count` validators whose keys derive from `label` (same label, same keys), with the given weights. */
export function deriveValidators(count: number, label: string, weight: (i: number) => bigint = () => 1_000_000n): ValidatorKey[] {
  return Array.from({ length: count }, (_, i) => {
    const seed = createHash('sha256').update(`${label}/validator/${i}`).digest();
    const privateKey = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
    const publicKey = createPublicKey(privateKey).export({ format: 'der', type: 'spki' }).subarray(12);
    const adnlAddr = createHash('sha256').update(`${label}/adnl/${i}`).digest();
    return { index: i, privateKey, publicKey, nodeId: nodeIdOf(publicKey).toString('hex'), weight: weight(i), adnlAddr };
  });
}

/** The descriptors the trust module reads back from a param-34 cell built from these validators. */
export function descriptorsOf(validators: readonly ValidatorKey[]): ValidatorDescr[] {
  return validators.map((v) => ({ index: v.index, publicKey: v.publicKey, weight: v.weight, adnlAddr: v.adnlAddr }));
}

export interface ValidatorSetOptions {
  /** How many sign masterchain blocks (default: all). */
  main?: number;
  utimeSince?: number;
  utimeUntil?: number;
  /** `validators_ext#12` with `validator_addr#73` (default) or the older `validators#11` with `validator#53`. */
  ext?: boolean;
}

/** A `ValidatorSet` cell for param 32/34/36, keyed by each validator's `index`. */
export function validatorSetCell(validators: readonly ValidatorKey[], opts: ValidatorSetOptions = {}): Cell {
  const ext = opts.ext ?? true;
  // ValidatorDescr is stored inline in the dictionary's leaves, not behind a reference.
  const list = Dictionary.empty(Dictionary.Keys.Uint(16), {
    serialize: (src: Cell, builder) => builder.storeSlice(src.beginParse()),
    parse: (s) => s.asCell(),
  });
  for (const v of validators) {
    const b = beginCell().storeUint(ext ? 0x73 : 0x53, 8).storeUint(0x8e81278a, 32).storeBuffer(v.publicKey).storeUint(v.weight, 64);
    if (ext) b.storeBuffer(v.adnlAddr);
    list.set(v.index, b.endCell());
  }
  const total = validators.length;
  const b = beginCell()
    .storeUint(ext ? 0x12 : 0x11, 8)
    .storeUint(opts.utimeSince ?? 0, 32)
    .storeUint(opts.utimeUntil ?? 0xffffffff, 32)
    .storeUint(total, 16)
    .storeUint(opts.main ?? total, 16);
  if (ext) {
    b.storeUint(validators.reduce((s, v) => s + v.weight, 0n), 64);
    b.storeDict(list);
  } else {
    b.storeDictDirect(list);
  }
  return b.endCell();
}

/** A `catchain_config_new#c2` cell (or `catchain_config#c1` when `kind` says so) for param 28. */
export function catchainConfigCell(c: Partial<CatchainConfig> = {}): Cell {
  const b = beginCell();
  if (c.kind === 'catchain_config') b.storeUint(0xc1, 8);
  else b.storeUint(0xc2, 8).storeUint(0, 7).storeBit(c.shuffleMcValidators ?? true);
  return b
    .storeUint(c.mcCatchainLifetime ?? 250, 32)
    .storeUint(c.shardCatchainLifetime ?? 250, 32)
    .storeUint(c.shardValidatorsLifetime ?? 1000, 32)
    .storeUint(c.shardValidatorsNum ?? 7, 32)
    .endCell();
}

/** A config dictionary (`Hashmap 32 ^Cell`) holding `params`. */
export function configDictCell(params: ReadonlyMap<number, Cell>): Cell {
  const dict = Dictionary.empty(Dictionary.Keys.Uint(32), Dictionary.Values.Cell());
  for (const [k, v] of params) dict.set(k, v);
  return beginCell().storeDictDirect(dict).endCell();
}

/**
 * The set hash and total weight of a masterchain group whose members, in signing order, are `ordered`
 * (use validators/set.ts `mainValidators` to get the node's order from a set and catchain config).
 */
export function groupHash(ccSeqno: number, ordered: readonly ValidatorKey[]): number {
  return validatorSetHash(ccSeqno, descriptorsOf(ordered));
}

/** Each signer's ed25519 signature of `data`, named by its node id. */
export function signEach(signers: readonly ValidatorKey[], data: Buffer): Signature[] {
  return signers.map((v) => ({ nodeIdShort: Buffer.from(v.nodeId, 'hex'), signature: sign(null, data, v.privateKey) }));
}

/** An ordinary (catchain) signature set: each signer signs TL `ton.blockId{root_hash, file_hash}`. */
export function signOrdinary(block: BlockIdExt, signers: readonly ValidatorKey[], ccSeqno: number, setHash: number): SignatureSet {
  // TL carries both as signed ints.
  return { kind: 'ordinary', catchainSeqno: ccSeqno | 0, validatorSetHash: setHash | 0, signatures: signEach(signers, blockIdPayload(block)) };
}

export interface KeyBlockValidators {
  /** Param 34's `main` (default: all). */
  main?: number;
  /** Param 28's `shuffle_mc_validators` (default true, as on mainnet and testnet). */
  shuffle?: boolean;
}

/**
 * Who signs masterchain blocks of session `ccSeqno` when a key block's param 34 lists `validators` and its
 * param 28 says `shuffle` — the node's order — and the set hash headers and signature sets must carry.
 */
export function masterchainSigners(
  validators: readonly ValidatorKey[],
  ccSeqno: number,
  opts: KeyBlockValidators = {},
): { signers: ValidatorKey[]; setHash: number } {
  const set = {
    kind: 'validators_ext' as const,
    utimeSince: 0,
    utimeUntil: 0,
    total: validators.length,
    main: opts.main ?? validators.length,
    totalWeight: validators.reduce((s, v) => s + v.weight, 0n),
    list: descriptorsOf(validators),
  };
  const catchain = { kind: 'catchain_config_new' as const, shuffleMcValidators: opts.shuffle ?? true, mcCatchainLifetime: 0, shardCatchainLifetime: 0, shardValidatorsLifetime: 0, shardValidatorsNum: 0 };
  const byIndex = new Map(validators.map((v) => [v.index, v]));
  const signers = mainValidators(set, catchain, ccSeqno).map((d) => byIndex.get(d.index)!);
  return { signers, setHash: groupHash(ccSeqno, signers) };
}
