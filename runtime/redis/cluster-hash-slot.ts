/** Number of hash slots in a Redis Cluster. */
export const clusterSlotCount = 16_384;

/**
 * The hash tag Redis Cluster hashes instead of the whole key: the text between the first `{` and the first `}` after
 * it, when that text is non-empty; `undefined` otherwise (then the whole key is hashed). Searching UTF-16 code units
 * finds the same braces as searching UTF-8 bytes, because no multi-byte UTF-8 sequence contains an ASCII byte.
 */
export function clusterHashTag(key: string): string | undefined {
  const open = key.indexOf('{');
  if (open === -1) {
    return undefined;
  }
  const close = key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : undefined;
}

/** The part of `key` Redis Cluster hashes: its hash tag, or the whole key. */
export function clusterHashedPart(key: string): string {
  return clusterHashTag(key) ?? key;
}

/** The Cluster hash slot of `key`, as `CLUSTER KEYSLOT` computes it: CRC16-XMODEM of the hashed part's UTF-8 bytes, mod 16384. */
export function clusterHashSlot(key: string): number {
  let crc = 0;
  for (const byte of Buffer.from(clusterHashedPart(key), 'utf8')) {
    crc = ((crc << 8) & 0xff_ff) ^ (crc16Table[((crc >> 8) ^ byte) & 0xff] ?? 0);
  }
  return crc % clusterSlotCount;
}

/** CRC16-CCITT (XMODEM: polynomial 0x1021, initial value 0), one entry per byte value. */
const crc16Table: readonly number[] = Array.from({ length: 256 }, (_, byte) => {
  let crc = byte << 8;
  for (let bit = 0; bit < 8; bit += 1) {
    crc = crc & 0x80_00 ? ((crc << 1) ^ 0x10_21) & 0xff_ff : (crc << 1) & 0xff_ff;
  }
  return crc;
});
