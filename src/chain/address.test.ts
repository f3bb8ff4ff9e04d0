import { Address } from '@ton/core';
import { describe, expect, it } from 'vitest';
import {
  InvalidAddressError,
  accountToAddress,
  addressToRaw,
  parseAccountId,
  parseAddressInfo,
  toFriendly,
  tryParseAccountId,
} from './address.js';

// A real mainnet wallet (fixtures/SOURCES.md) and the elector on the masterchain.
const WALLET_FRIENDLY = 'EQBvW8Z5huBkMJYdnfAEM5JqTNkuWX3diqYENkWsIL0XggGG';
const WALLET_RAW = '0:6f5bc67986e06430961d9df00433926a4cd92e597ddd8aa6043645ac20bd1782';
const ELECTOR_RAW = '-1:3333333333333333333333333333333333333333333333333333333333333333';

describe('parseAccountId', () => {
  it('reads a real bounceable mainnet address (cross-checked with @ton/core)', () => {
    expect(parseAccountId(WALLET_FRIENDLY)).toBe(WALLET_RAW);
    expect(Address.parse(WALLET_FRIENDLY).toRawString()).toBe(WALLET_RAW);
  });

  it('accepts raw form in any hex case and normalises to lowercase', () => {
    expect(parseAccountId(WALLET_RAW.toUpperCase())).toBe(WALLET_RAW);
    expect(parseAccountId(ELECTOR_RAW)).toBe(ELECTOR_RAW);
    expect(parseAccountId(`  ${WALLET_RAW}  `)).toBe(WALLET_RAW);
  });

  it('accepts every friendly flavour: EQ/UQ/kQ/0Q, base64url and base64, masterchain', () => {
    const address = Address.parseRaw(WALLET_RAW);
    const forms = [
      { bounceable: true, testOnly: false, prefix: 'EQ' },
      { bounceable: false, testOnly: false, prefix: 'UQ' },
      { bounceable: true, testOnly: true, prefix: 'kQ' },
      { bounceable: false, testOnly: true, prefix: '0Q' },
    ];
    for (const form of forms) {
      for (const urlSafe of [true, false]) {
        const text = address.toString({ bounceable: form.bounceable, testOnly: form.testOnly, urlSafe });
        expect(text.startsWith(form.prefix)).toBe(true);
        const info = parseAddressInfo(text);
        expect(info).toEqual({ account: WALLET_RAW, bounceable: form.bounceable, testOnly: form.testOnly });
      }
    }
    const elector = Address.parseRaw(ELECTOR_RAW).toString();
    expect(elector.startsWith('Ef8')).toBe(true);
    expect(parseAccountId(elector)).toBe(ELECTOR_RAW);
  });

  it('accepts a standard-base64 address whose + arrived as a space in a query string', () => {
    // Find a wallet whose standard base64 form contains '+'.
    let withPlus = '';
    for (let i = 0; i < 256 && !withPlus; i++) {
      const text = new Address(0, Buffer.alloc(32, i)).toString({ urlSafe: false });
      if (text.includes('+')) withPlus = text;
    }
    expect(withPlus).not.toBe('');
    const viaQuery = new URLSearchParams(`a=${withPlus}`).get('a')!;
    expect(viaQuery).toContain(' ');
    expect(parseAccountId(viaQuery)).toBe(parseAccountId(withPlus));
  });

  it('rejects a bad checksum, naming the problem', () => {
    const broken = WALLET_FRIENDLY.slice(0, -1) + (WALLET_FRIENDLY.endsWith('G') ? 'H' : 'G');
    expect(() => parseAccountId(broken)).toThrow(InvalidAddressError);
    expect(() => parseAccountId(broken)).toThrow(/checksum mismatch: a character is mistyped/);
  });

  it('names the typo in an address that is nearly user-friendly, not the forms it could have been', () => {
    const say = (text: string): string => {
      try {
        return `parsed ${parseAccountId(text)}`;
      } catch (e) {
        return (e as Error).message;
      }
    };
    const swapped = WALLET_FRIENDLY.slice(0, 10) + WALLET_FRIENDLY[11] + WALLET_FRIENDLY[10] + WALLET_FRIENDLY.slice(12);
    expect(say(swapped)).toMatch(/checksum mismatch: a character is mistyped/);
    expect(say(WALLET_FRIENDLY.slice(0, 20) + WALLET_FRIENDLY.slice(21))).toMatch(/has 47 characters where a user-friendly address has 48: 1 missing$/);
    expect(say(WALLET_FRIENDLY + 'Q')).toMatch(/has 49 characters where a user-friendly address has 48: 1 too many$/);
    expect(say(WALLET_FRIENDLY.replace('W', 'Ш'))).toMatch(/character "Ш" at position 5 is not used in addresses \(a typo\?\)$/);
    expect(say('hello')).not.toMatch(/typo|checksum/);
    // A 32-byte hash in padded base64 (44 characters) is no address with a typo: the general message.
    expect(say(Buffer.alloc(32, 7).toString('base64'))).toMatch(/expected the raw form/);
  });

  it('rejects garbage with a clear message and tryParseAccountId returns null', () => {
    const garbage = [
      '',
      'hello',
      '0:xyz',
      '0:' + 'a'.repeat(63),
      '0:' + 'a'.repeat(65),
      '999:' + 'a'.repeat(64),
      'EQ' + 'A'.repeat(45),
      WALLET_FRIENDLY.replace('B', '+').replace('h', '_'),
      '!'.repeat(48),
    ];
    for (const input of garbage) {
      expect(() => parseAccountId(input), input).toThrow(InvalidAddressError);
      expect(tryParseAccountId(input)).toBeNull();
    }
    expect(() => parseAccountId('hello')).toThrow(/invalid address "hello": expected the raw form/);
    expect(() => parseAccountId(null as unknown as string)).toThrow(InvalidAddressError);
  });

  it('rejects a friendly address with an unknown tag byte', () => {
    const data = Buffer.alloc(36);
    data[0] = 0x22;
    const text = data.toString('base64url');
    expect(() => parseAccountId(text)).toThrow(/checksum|tag/);
  });
});

describe('toFriendly / addressToRaw', () => {
  it('round-trips through every flag combination', () => {
    for (const bounceable of [true, false]) {
      for (const testOnly of [true, false]) {
        for (const urlSafe of [true, false]) {
          const text = toFriendly(WALLET_RAW, { bounceable, testOnly, urlSafe });
          expect(parseAddressInfo(text)).toEqual({ account: WALLET_RAW, bounceable, testOnly });
          expect(/[+/]/.test(text) && urlSafe).toBe(false);
        }
      }
    }
    expect(toFriendly(WALLET_RAW)).toBe(WALLET_FRIENDLY);
  });

  it('converts @ton/core addresses both ways', () => {
    expect(addressToRaw(Address.parse(WALLET_FRIENDLY))).toBe(WALLET_RAW);
    expect(addressToRaw(accountToAddress(ELECTOR_RAW))).toBe(ELECTOR_RAW);
  });
});
