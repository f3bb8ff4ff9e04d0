// Get-method ids as the TVM computes `method_id` from a name: crc16 of the name, low 16 bits, | 0x10000.
import { crc16 } from '@ton/core';

export function methodId(name: string): number {
  return (crc16(Buffer.from(name)).readUInt16BE(0) & 0xffff) | 0x10000;
}
