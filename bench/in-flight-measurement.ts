/** One operation of a benchmark: `slot` is the in-flight loop running it, `sequence` its number in the slice. */
export type BenchOperation = (slot: number, sequence: number) => Promise<unknown>;

/** Runs `count` operations with `inFlight` concurrent loops; returns ops/s and each operation's latency in ms. */
export async function measureInFlight(
  operation: BenchOperation,
  count: number,
  inFlight: number,
): Promise<{ opsPerSecond: number; latencies: Float64Array }> {
  const latencies = new Float64Array(count);
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: inFlight }, async (_, slot) => {
      for (let sequence = next++; sequence < count; sequence = next++) {
        const begun = process.hrtime.bigint();
        await operation(slot, sequence);
        latencies[sequence] = Number(process.hrtime.bigint() - begun) / 1e6;
      }
    }),
  );
  return { opsPerSecond: count / (Number(process.hrtime.bigint() - started) / 1e9), latencies };
}

/** The value at `fraction` of an ascending array (0.5 the median, 0.99 the 99th percentile). */
export function percentile(sorted: Float64Array, fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

/** The median of `values`, in any order. */
export function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
}
