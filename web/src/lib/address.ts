// Account addresses as people read them. The API speaks the raw form (`0:f096…`); wallets show the
// user-friendly one: base64url of [tag, workchain, 32-byte hash, CRC16], tag 0x51 non-bounceable (`UQ…`,
// wallets) or 0x11 bounceable (`EQ…`, contracts), plus 0x80 on a test network (`0Q…`, `kQ…`).

const BOUNCEABLE = 0x11;
const NON_BOUNCEABLE = 0x51;
const TEST_ONLY = 0x80;

export interface AddressForm {
  bounceable?: boolean;
  testOnly?: boolean;
}

/** CRC-16/XMODEM, the checksum of user-friendly addresses. */
function crc16(data: Uint8Array): number {
  let crc = 0;
  for (const byte of data) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** `0:f096…` → `UQDwlq…` (non-bounceable and not test-only unless told); anything else unchanged. */
export function friendlyAddress(raw: string, form: AddressForm = {}): string {
  const m = /^(-?\d{1,3}):([0-9a-fA-F]{64})$/.exec(raw);
  if (!m) return raw;
  const bytes = new Uint8Array(36);
  bytes[0] = (form.bounceable ? BOUNCEABLE : NON_BOUNCEABLE) | (form.testOnly ? TEST_ONLY : 0);
  bytes[1] = Number(m[1]) & 0xff;
  for (let i = 0; i < 32; i++) bytes[2 + i] = parseInt(m[2]!.slice(i * 2, i * 2 + 2), 16);
  const crc = crc16(bytes.subarray(0, 34));
  bytes[34] = crc >> 8;
  bytes[35] = crc & 0xff;
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_');
}

/** Whether a user-friendly address the server made carries the test-only flag (the network is a test one). */
export function isTestOnly(friendly: string): boolean {
  try {
    return (atob(friendly.slice(0, 4).replace(/-/g, '+').replace(/_/g, '/')).charCodeAt(0) & TEST_ONLY) !== 0;
  } catch {
    return false;
  }
}

/** The address a payment link (`ton://transfer/<address>?…`) pays: the form the payer's wallet shows. */
export function linkAddress(link: string): string {
  return /^ton:\/\/transfer\/([^?]+)/.exec(link)?.[1] ?? '';
}
