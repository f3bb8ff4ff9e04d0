// TONWATCH_REPLAY_SHARES: the share of new replay traces of each kind. The setting is checked here, at
// load time; the replay source (chain/replay/options.ts) takes the same shares and checks from here.

/** Share of new traces of each kind; what is left over is plain TON transfers without a body. */
export interface ReplayShares {
  /** Jetton transfers: owner → jetton wallet → jetton wallet → notification + excess (5 tx over 4 blocks). */
  jetton: number;
  /** TON transfers with a text comment. */
  comment: number;
  /** Bounceable TON transfers to an address without code, which bounce back (3 tx over 3 blocks). */
  bounce: number;
}

export const DEFAULT_SHARES: ReplayShares = { jetton: 0.3, comment: 0.4, bounce: 0.02 };

/** Each share in [0, 1] and their sum at most 1; a RangeError names the option otherwise. */
export function checkShares(shares: ReplayShares, name: string): ReplayShares {
  for (const key of ['jetton', 'comment', 'bounce'] as const) {
    const v = shares[key];
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 1) {
      throw new RangeError(`replay option ${name}.${key} must be a number from 0 to 1, got ${String(v)}`);
    }
  }
  if (shares.jetton + shares.comment + shares.bounce > 1 + 1e-9) {
    throw new RangeError(`replay option ${name}: jetton + comment + bounce must not exceed 1 (the rest are plain transfers)`);
  }
  return shares;
}

/**
 * Parses `jetton=0.3,comment=0.4,bounce=0.02` (any subset; the others keep their defaults).
 * Returns undefined when the text is not allowed (the config reports it with the setting's name).
 */
export function parseShares(raw: string): ReplayShares | undefined {
  const shares = { ...DEFAULT_SHARES };
  for (const part of raw.split(',')) {
    const m = /^\s*(jetton|comment|bounce)\s*=\s*([0-9]*\.?[0-9]+)\s*$/i.exec(part);
    if (!m) return undefined;
    shares[m[1]!.toLowerCase() as keyof ReplayShares] = Number(m[2]);
  }
  try {
    return checkShares(shares, 'shares');
  } catch {
    return undefined;
  }
}
