import { describe, expect, it } from 'vitest';
import { Address, beginCell } from '@ton/core';
import { InvalidLinkError, parseTransferLink } from './links.js';

const raw = `0:${'83'.repeat(32)}`;
const address = Address.parse(raw);
const payload = beginCell().storeUint(0x7aa23eb5, 32).storeUint(1n, 128).storeUint(0, 8).endCell();

describe('ton://transfer links', () => {
  it('reads address, amount, text, bin, jetton and exp', () => {
    const jetton = `0:${'ab'.repeat(32)}`;
    const link = `ton://transfer/${raw}?amount=1500&text=hello%20world&bin=${payload.toBoc().toString('base64url')}&jetton=${jetton}&exp=1700000000`;
    const parsed = parseTransferLink(link);
    expect(parsed).toMatchObject({ destination: raw, bounceable: true, amount: 1500n, text: 'hello world', jetton, expiresAt: 1700000000 });
    expect(parsed.payload!.hash().equals(payload.hash())).toBe(true);
  });

  it('takes the bounce flag from the friendly form and accepts standard base64 with "+" turned to a space', () => {
    const nonBounceable = address.toString({ bounceable: false });
    expect(parseTransferLink(`ton://transfer/${nonBounceable}?amount=1`)).toMatchObject({ destination: raw, bounceable: false });
    const std = payload.toBoc().toString('base64');
    const spaced = std.replace(/\+/g, ' ');
    expect(parseTransferLink(`ton://transfer/${raw}?amount=1&bin=${encodeURIComponent(spaced)}`).payload!.hash().equals(payload.hash())).toBe(true);
  });

  it.each([
    ['https://example.com/transfer', /starts with ton:\/\/transfer\//],
    ['ton://transfer/not-an-address?amount=1', /address is invalid/],
    ['ton://transfer/%E0%A4%A?amount=1', /address is invalid/],
    [`ton://transfer/${raw}`, /has no amount/],
    [`ton://transfer/${raw}?amount=1.5`, /positive integer/],
    [`ton://transfer/${raw}?amount=0`, /positive integer/],
    [`ton://transfer/${raw}?amount=1&bin=%%%`, /not a base64 BoC/],
    [`ton://transfer/${raw}?amount=1&jetton=nope`, /jetton is not an address/],
    [`ton://transfer/${raw}?amount=1&exp=soon`, /exp must be unix seconds/],
  ])('refuses %s', (link, message) => {
    expect(() => parseTransferLink(link)).toThrow(InvalidLinkError);
    expect(() => parseTransferLink(link)).toThrow(message);
  });
});
