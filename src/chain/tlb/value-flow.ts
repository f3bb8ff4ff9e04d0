// ValueFlow (block.tlb): the block's money balance sheet, in both constructors.
//   value_flow#b8e48dfb ^[ from_prev_blk to_next_blk imported exported ] fees_collected
//     ^[ fees_imported recovered created minted ] = ValueFlow
//   value_flow_v2#3ebf98b7 … the same with burned:CurrencyCollection after fees_collected
import { beginCell, loadCurrencyCollection, storeCurrencyCollection, type Builder, type CurrencyCollection, type Slice } from '@ton/core';

export const VALUE_FLOW_TAG = 0xb8e48dfb;
export const VALUE_FLOW_V2_TAG = 0x3ebf98b7;

export interface ValueFlow {
  fromPrevBlk: CurrencyCollection;
  toNextBlk: CurrencyCollection;
  imported: CurrencyCollection;
  exported: CurrencyCollection;
  feesCollected: CurrencyCollection;
  /** Present exactly in value_flow_v2. */
  burned: CurrencyCollection | null;
  feesImported: CurrencyCollection;
  recovered: CurrencyCollection;
  created: CurrencyCollection;
  minted: CurrencyCollection;
}

export function loadValueFlow(s: Slice): ValueFlow {
  const tag = s.loadUint(32);
  if (tag !== VALUE_FLOW_TAG && tag !== VALUE_FLOW_V2_TAG) throw new Error(`ValueFlow tag 0x${tag.toString(16)} is unknown`);
  const a = s.loadRef().beginParse();
  const fromPrevBlk = loadCurrencyCollection(a);
  const toNextBlk = loadCurrencyCollection(a);
  const imported = loadCurrencyCollection(a);
  const exported = loadCurrencyCollection(a);
  const feesCollected = loadCurrencyCollection(s);
  const burned = tag === VALUE_FLOW_V2_TAG ? loadCurrencyCollection(s) : null;
  const c = s.loadRef().beginParse();
  return {
    fromPrevBlk, toNextBlk, imported, exported, feesCollected, burned,
    feesImported: loadCurrencyCollection(c),
    recovered: loadCurrencyCollection(c),
    created: loadCurrencyCollection(c),
    minted: loadCurrencyCollection(c),
  };
}

export function storeValueFlow(src: ValueFlow): (b: Builder) => void {
  return (b) => {
    b.storeUint(src.burned ? VALUE_FLOW_V2_TAG : VALUE_FLOW_TAG, 32);
    b.storeRef(
      beginCell()
        .store(storeCurrencyCollection(src.fromPrevBlk))
        .store(storeCurrencyCollection(src.toNextBlk))
        .store(storeCurrencyCollection(src.imported))
        .store(storeCurrencyCollection(src.exported)),
    );
    b.store(storeCurrencyCollection(src.feesCollected));
    if (src.burned) b.store(storeCurrencyCollection(src.burned));
    b.storeRef(
      beginCell()
        .store(storeCurrencyCollection(src.feesImported))
        .store(storeCurrencyCollection(src.recovered))
        .store(storeCurrencyCollection(src.created))
        .store(storeCurrencyCollection(src.minted)),
    );
  };
}
