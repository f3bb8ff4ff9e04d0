// The replay chain source: synthetic finalized blocks built from recorded devnet trace shapes, at
// any rate, for benchmarks and `TONWATCH_CHAIN=replay`. See README.md in this folder.
export { ReplaySource, createReplaySource, type ReplaySourceOptions } from './source.js';
export { DEFAULT_SHARES, parseShares, type ReplayShares } from '../../config/replay-shares.js';
export { replayOptionsFromConfig, resolveReplayOptions, type ReplayOptions, type ReplayPace } from './options.js';
export type { GeneratorStats } from './generator.js';
