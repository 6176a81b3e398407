import { describeValue } from '../describe-value.js';

/** The most partitions a subscription may have: each is a lease, a fencing token and a checkpoint of its own. */
const maxPartitions = 4096;

/** Throws `RangeError` unless `partitions` is a power of two from 1 to 4096. */
export function assertPartitionCount(partitions: unknown): asserts partitions is number {
  if (!Number.isInteger(partitions) || (partitions as number) < 1 || (partitions as number) > maxPartitions) {
    throw new RangeError(
      `partitions must be a power of two from 1 to ${maxPartitions}, got ${describeValue(partitions)}.`,
    );
  }
  const count = partitions as number;
  if ((count & (count - 1)) !== 0) {
    throw new RangeError(
      `partitions must be a power of two from 1 to ${maxPartitions}, got ${count}: a key's partition is the low bits ` +
        'of its hash. Use 64 (the default) or another power of two.',
    );
  }
}

/**
 * The partition of `key` among `partitions` (a power of two): the low log2(partitions) bits of {@link murmur2} of the
 * key's UTF-8 bytes. That is Kafka's default partitioner (`toPositive(murmur2(bytes)) % partitions`) for a string
 * key, so a Kafka topic of as many partitions holds each key in the partition of the same number. Fixed for good: a
 * change would move keys between partitions whose checkpoints are already stored.
 */
export function partitionOf(key: string, partitions: number): number {
  return murmur2(Buffer.from(key, 'utf8')) & (partitions - 1);
}

/**
 * MurmurHash2, 32-bit, as Kafka's `Utils.murmur2`: seed 0x9747b28c, little-endian 4-byte blocks; a signed 32-bit
 * result, the same on every platform (`Math.imul` wraps as Java's `int` does).
 */
export function murmur2(bytes: Uint8Array): number {
  const m = 0x5bd1e995;
  const length = bytes.length;
  const blocks = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tail = length & ~3;
  let h = 0x9747b28c ^ length;
  for (let offset = 0; offset < tail; offset += 4) {
    let k = Math.imul(blocks.getInt32(offset, true), m);
    k = Math.imul(k ^ (k >>> 24), m);
    h = Math.imul(h, m) ^ k;
  }
  if (length > tail) {
    for (let index = length - 1; index >= tail; index -= 1) {
      h ^= (bytes[index] ?? 0) << (8 * (index - tail));
    }
    h = Math.imul(h, m);
  }
  h = Math.imul(h ^ (h >>> 13), m);
  return h ^ (h >>> 15);
}
