// What the follower reports of itself (/readyz, metrics).
export interface FollowerStatus {
  running: boolean;
  /** Last masterchain seqno appended to the log. */
  lastSeqno: number | null;
  /** Latest finalized masterchain seqno the source reported. */
  headSeqno: number | null;
  lagBlocks: number | null;
  /** Seconds between now and the generation time of the last appended block. */
  lagSeconds: number | null;
  tracesInFlight: number;
  /** Why the last step failed (the store or the source), while the follower is retrying; null when it is not. */
  error: string | null;
}
