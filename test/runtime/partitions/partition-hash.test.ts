import { describe, expect, it } from 'vitest';
import { assertPartitionCount, murmur2, partitionOf } from '../../../runtime/partitions/index.js';

describe('murmur2', () => {
  // Kafka's UtilsTest.testMurmur2, and Akka's Murmur2Spec (values from Kafka's implementation).
  it.each([
    ['21', -973932308],
    ['foobar', -790332482],
    ['a-little-bit-long-string', -985981536],
    ['a-little-bit-longer-string', -1486304829],
    ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
    ['abc', 479470107],
    ['', 275646681],
    ['1', -1993445489],
    ['12', 126087238],
    ['123', -267702483],
    ['1234', -1614185708],
    ['12345', -1188365604],
  ])('hashes %j as Kafka does: %i', (text, hash) => {
    expect(murmur2(Buffer.from(text, 'utf8'))).toBe(hash);
  });

  it('reads a view into a larger buffer from its own offset', () => {
    const inside = Buffer.from('xxfoobarxx', 'utf8').subarray(2, 8);
    expect(murmur2(inside)).toBe(-790332482);
  });
});

describe('partitionOf', () => {
  it('is the partition Kafka’s default partitioner picks: toPositive(murmur2) % P', () => {
    // toPositive(-790332482) = 1357151166; 1357151166 % 64 = 62, % 2 = 0.
    expect(partitionOf('foobar', 64)).toBe(62);
    expect(partitionOf('foobar', 2)).toBe(0);
    expect(partitionOf('abc', 64)).toBe(479470107 % 64);
    expect(partitionOf('anything', 1)).toBe(0);
  });

  // Pinned (and checked against a literal port of Kafka's Java code): they must never change, or stored checkpoints
  // would belong to other keys.
  it.each([
    ['order-1', 64, 54],
    ['order-2', 64, 3],
    ['Zürich', 64, 49],
    ['流-😀', 4096, 72],
    ['customer/42', 32, 23],
  ])('maps %j among %i partitions to %i', (key, partitions, partition) => {
    expect(partitionOf(key, partitions)).toBe(partition);
  });

  it('tells apart keys that differ only in the high bits of a byte (FNV-1a masked to 6 bits never does)', () => {
    const character = (code: number): string => String.fromCharCode(code);
    const pairs = Array.from({ length: 32 }, (_, index) => [
      `order-${character(0x20 + index)}`,
      `order-${character(0x60 + index)}`,
    ]);
    const shared = pairs.filter(([a = '', b = '']) => partitionOf(a, 64) === partitionOf(b, 64));
    expect(shared.length).toBeLessThanOrEqual(3);
  });
});

describe('assertPartitionCount', () => {
  it.each([1, 2, 64, 4096])('accepts %i', (count) => {
    expect(() => {
      assertPartitionCount(count);
    }).not.toThrow();
  });

  it.each([0, 3, 96, 8192, 1.5, -64, Number.NaN, '64', 64n])('refuses %s', (count) => {
    expect(() => {
      assertPartitionCount(count);
    }).toThrow(RangeError);
  });
});
