// Streaming v2 notification contents: the API v3 objects (toncenter/ton-indexer) that `transactions`,
// `trace`, `actions`, `account_state_change` and `jettons_change` notifications embed, built from the
// chain model. Build once per event (the fan-out shares the result with every client), then filter per
// client with `actionVisible` and `pickAddressBook`/`pickMetadata`.
//
//   const facts = await readContractFacts(txs, runGetMethod);            // proven get-methods, once per trace
//   const content = traceContent(txs, { finality, emulated, traceId, traceExternalHash, traceExternalHashNorm }, facts);
//   content.transactions    // `transactions`: V3Transaction[], LT descending
//   content.trace           // `trace.trace`: the tree; content.transactionMap: `trace.transactions`
//   content.actions         // `actions`: V3Action[], LT descending
//   content.addresses       // every raw account the notification mentions (for the address book/metadata)
//
// docs/STREAMING.md, "v2 notification objects", has the facts and their sources.
export type * from './types.js';
export { v3Address, v3Hash, v3Opcode, v3Shard } from './encode.js';
export { v3Transaction, v3Transactions, v3Message, byLtDescending, type TraceContext } from './transactions.js';
export { traceTree, transactionMap } from './trace.js';
export {
  classifyActions,
  CLASSIFIED_ACTION_TYPES,
  UNCLASSIFIED_ACTION_TYPES,
  expandActionTypes,
  actionVisible,
  type ActionFilter,
} from './actions.js';
export { readContractFacts, noContractFacts, type ContractFacts, type GetMethodRunner } from './facts.js';
export { accountStateChange, jettonsChange, type JettonWalletState } from './state.js';
export { AddressBookBuilder, pickAddressBook, type AddressBookOptions, type DomainResolver } from './address-book.js';
export { MetadataReader, pickMetadata, guardedFetcher, type MetadataOptions, type OffchainFetcher } from './metadata.js';
export { traceContent, transactionAddresses, type TraceContent } from './content.js';
export { readTransactionCell } from './transaction-cell.js';
