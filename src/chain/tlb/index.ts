// Lossless TL-B load/store pairs for the block.tlb types @ton/core lacks (docs/BLOCKS.md).
export * from './account-block.js';
export * from './block-info.js';
export * from './block.js';
export * from './currency.js';
export * from './ext-blk-ref.js';
export * from './hashmap.js';
export * from './mc-block-extra.js';
export * from './mc-state-extra.js';
export * from './shard-descr.js';
export * from './shard-state.js';
export * from './value-flow.js';
