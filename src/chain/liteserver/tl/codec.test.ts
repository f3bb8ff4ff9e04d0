import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { BOOL_FALSE, BOOL_TRUE, TLError, TLReader, TLWriter, tlId, tlIdHex, tlNormalize, tlRead, tlWrite } from './codec.js';

describe('TL codec primitives', () => {
  it('Bool constructor ids are the ones TON schemas carry', () => {
    expect(tlIdHex(BOOL_TRUE)).toBe('997275b5');
    expect(tlIdHex(BOOL_FALSE)).toBe('bc799737');
  });

  it('normalizes declarations before hashing: explicit id, parentheses, comment, spacing', () => {
    expect(tlNormalize('liteServer.getConfigParams mode:# id:tonNode.blockIdExt param_list:(vector int) = liteServer.ConfigInfo;'))
      .toBe('liteServer.getConfigParams mode:# id:tonNode.blockIdExt param_list:vector int = liteServer.ConfigInfo');
    expect(tlNormalize('liteServer.waitMasterchainSeqno seqno:int timeout_ms:int = Object; // query prefix'))
      .toBe('liteServer.waitMasterchainSeqno seqno:int timeout_ms:int = Object');
    expect(tlNormalize('a.b#0badf00d x:int = A;')).toBe('a.b x:int = A');
    expect(tlIdHex(tlId('tcp.ping random_id:long = tcp.Pong'))).toBe('4d082b9a');
  });

  it('pads bytes to 4 with a 1-byte length below 254 and a 0xfe + 3-byte length from 254', () => {
    expect(tlWrite((w) => w.bytes(Buffer.from([1, 2, 3])))).toEqual(Buffer.from([3, 1, 2, 3]));
    expect(tlWrite((w) => w.bytes(Buffer.alloc(0)))).toEqual(Buffer.from([0, 0, 0, 0]));
    expect(tlWrite((w) => w.bytes(Buffer.from([9])))).toEqual(Buffer.from([1, 9, 0, 0]));
    const long = tlWrite((w) => w.bytes(Buffer.alloc(254, 7)));
    expect(long.subarray(0, 4)).toEqual(Buffer.from([0xfe, 254, 0, 0]));
    expect(long.length).toBe(4 + 256);
    const short = tlWrite((w) => w.bytes(Buffer.alloc(253, 7)));
    expect(short[0]).toBe(253);
    expect(short.length).toBe(256);
  });

  it('writes integers little-endian; long is signed', () => {
    expect(tlWrite((w) => w.int32(-2))).toEqual(Buffer.from('feffffff', 'hex'));
    expect(tlWrite((w) => w.int64(-(1n << 63n)))).toEqual(Buffer.from('0000000000000080', 'hex'));
    expect(() => tlWrite((w) => w.int32(0x80000000))).toThrow(TLError);
    expect(() => tlWrite((w) => w.int256(Buffer.alloc(31)))).toThrow(/32 bytes/);
  });

  it('round-trips every primitive', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -0x80000000, max: 0x7fffffff }),
        fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n }),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.uint8Array({ maxLength: 1000 }),
        fc.string(),
        fc.boolean(),
        fc.array(fc.integer({ min: -5, max: 5 }), { maxLength: 10 }),
        (i, l, h, b, s, t, v) => {
          const buf = tlWrite((w) => w.int32(i).int64(l).int256(h).bytes(b).string(s).bool(t).vector(v, (ww, x) => ww.int32(x)));
          expect(buf.length % 4).toBe(0);
          const got = tlRead(buf, (r) => [r.int32(), r.int64(), r.int256(), r.bytes(), r.string(), r.bool(), r.vector((rr) => rr.int32())], 'sample');
          expect(got).toEqual([i, l, Buffer.from(h), Buffer.from(b), s, t, v]);
        },
      ),
    );
  });

  it('says what it was reading when the input is short, wrong or too long', () => {
    expect(() => new TLReader(Buffer.from([5, 1, 2])).bytes()).toThrow(/bytes needs 8 bytes at offset 0, only 3 left/);
    expect(() => new TLReader(Buffer.alloc(4)).bool()).toThrow(/expected Bool/);
    const r = new TLReader(tlWrite((w) => w.id(0x11223344)));
    expect(() => r.expectId(0x4d082b9a, 'tcp.ping')).toThrow(/expected tcp.ping \(#4d082b9a\) at offset 0, got #11223344/);
    expect(() => tlRead(Buffer.alloc(8), (rr) => rr.int32(), 'liteServer.getTime')).toThrow(/4 bytes left after liteServer.getTime/);
    expect(() => new TLReader(tlWrite((w) => w.uint32(1000))).vector((rr) => rr.int32())).toThrow(/too long/);
  });

  it('grows its buffer past the initial size', () => {
    const w = new TLWriter(4);
    for (let i = 0; i < 100; i++) w.int32(i);
    const r = new TLReader(w.finish());
    for (let i = 0; i < 100; i++) expect(r.int32()).toBe(i);
  });
});
