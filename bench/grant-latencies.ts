import type { CompetingConsumerStrategy } from '../runtime/index.js';

/**
 * p50 and p99, in milliseconds, of `grants` registers of a free lease through `strategy`, one at a time, each on a new
 * subscription id, after one uncounted warm-up grant. @throws Error when a grant is refused (`why` says what to check).
 */
export async function measureGrants(
  strategy: CompetingConsumerStrategy,
  grants: number,
  why: string,
): Promise<{ p50: number; p99: number }> {
  await strategy.register('warm-up', 'bench');
  const latencies: number[] = [];
  for (let index = 0; index < grants; index += 1) {
    const begun = process.hrtime.bigint();
    if (!(await strategy.register(`grant-${index}`, 'bench'))) {
      throw new Error(`The bench's grant ${index} was not granted: ${why}`);
    }
    latencies.push(Number(process.hrtime.bigint() - begun) / 1e6);
  }
  latencies.sort((a, b) => a - b);
  return {
    p50: latencies[Math.floor(latencies.length / 2)] ?? Number.NaN,
    p99: latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] ?? Number.NaN,
  };
}
