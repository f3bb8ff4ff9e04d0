// Decoders from cells to the chain model (src/chain/model.ts). Everything else in tonwatch imports from here.
export { decodeBlock, readTransactionCells, BLOCK_TAG, type DecodedBlock, type DecodedBlockHeader, type DecodeBlockOptions } from './block.js';
export type { ExtBlockRef } from './block-info.js';
export type { ShardBlockRef } from './shard-hashes.js';
export { decodeTransaction, type TransactionLocation } from './transaction.js';
export { decodeMessage } from './message.js';
export { decodeBody } from './body.js';
export { readForwardPayload, readPayloadContent } from './payload.js';
export { buildInvoicePayload, adnlToText } from './invoice.js';
export { classifyInbound } from './inbound.js';
export { OP, readOpcode, opHex } from './opcode.js';
export { cellToBoc } from './boc.js';
export { CellLayoutError, CellReader } from './reader.js';
