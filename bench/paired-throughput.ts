import { loadavg } from 'node:os';

/** One side of a comparison: a write for in-flight slot `slot`, the `sequence`-th write of its run. */
export interface BenchSide {
  readonly name: string;
  readonly write: (slot: number, sequence: number) => Promise<unknown>;
}

/** How a paired comparison runs: `rounds` back-to-back pairs of `operations` writes each, `inFlight` at a time. */
export interface PairedRun {
  readonly inFlight: number;
  readonly operations: number;
  readonly rounds: number;
}

/** What one side measured: the median slice's throughput and percentiles over every timed write. */
export interface SideFigures {
  readonly name: string;
  readonly opsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/** Both sides and the candidate's throughput over the baseline's: the median of the pairs' ratios, with quartiles. */
export interface PairedComparison {
  readonly baseline: SideFigures;
  readonly candidate: SideFigures;
  readonly ratio: number;
  readonly lowerQuartile: number;
  readonly upperQuartile: number;
}

/**
 * Measures `candidate` against `baseline` in short back-to-back pairs, alternating which goes first, so load from
 * other processes on a shared machine hits both sides of a pair alike. One uncounted warm-up run of each side first.
 */
export async function comparePaired(
  baseline: BenchSide,
  candidate: BenchSide,
  run: PairedRun,
): Promise<PairedComparison> {
  const sides = [baseline, candidate];
  for (const side of sides) {
    await measure(side, run);
  }
  const throughput = sides.map((): number[] => []);
  const latencies = sides.map((): Float64Array[] => []);
  const pairRatios: number[] = [];
  for (let round = 0; round < run.rounds; round += 1) {
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    const pair: number[] = [];
    for (const index of order) {
      const measured = await measure(sides[index] as BenchSide, run);
      pair[index] = measured.opsPerSecond;
      throughput[index]?.push(measured.opsPerSecond);
      latencies[index]?.push(measured.latencies);
    }
    pairRatios.push((pair[1] ?? 0) / (pair[0] ?? 1));
  }
  const figures = (index: number): SideFigures => {
    const all = Float64Array.from((latencies[index] ?? []).flatMap((part) => [...part])).sort();
    return {
      name: sides[index]?.name ?? '',
      opsPerSecond: median(throughput[index] ?? []),
      p50Ms: percentile(all, 0.5),
      p99Ms: percentile(all, 0.99),
    };
  };
  const sortedRatios = Float64Array.from(pairRatios).sort();
  return {
    baseline: figures(0),
    candidate: figures(1),
    ratio: median(pairRatios),
    lowerQuartile: percentile(sortedRatios, 0.25),
    upperQuartile: percentile(sortedRatios, 0.75),
  };
}

/** The lines a bench prints for `comparison`: each side's ops/s and latency, then the ratio against `target`, if any. */
export function formatComparison(comparison: PairedComparison, ratioName: string, target?: number): string[] {
  const side = ({ name, opsPerSecond, p50Ms, p99Ms }: SideFigures): string =>
    `${name.padEnd(50)} ${Math.round(opsPerSecond).toLocaleString('en-US').padStart(9)} ops/s` +
    `  p50 ${p50Ms.toFixed(2)} ms  p99 ${p99Ms.toFixed(2)} ms`;
  const { ratio, lowerQuartile, upperQuartile } = comparison;
  return [
    side(comparison.baseline),
    side(comparison.candidate),
    `ratio ${ratioName}: ${ratio.toFixed(3)} (median of the pairs; quartiles ${lowerQuartile.toFixed(3)}–` +
      `${upperQuartile.toFixed(3)}; ${target === undefined ? 'for reference, no target' : `target >= ${target}: ${ratio >= target ? 'met' : 'NOT met'}`})`,
  ];
}

/** The 1-minute load average, the figure every bench prints beside its numbers. */
export function loadAverage(): string {
  return loadavg()[0]?.toFixed(1) ?? '?';
}

/** Runs `run.operations` writes of `side` with `run.inFlight` loops; returns ops/s and each write's latency in ms. */
async function measure(side: BenchSide, run: PairedRun): Promise<{ opsPerSecond: number; latencies: Float64Array }> {
  const latencies = new Float64Array(run.operations);
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: run.inFlight }, async (_, slot) => {
      for (let sequence = next++; sequence < run.operations; sequence = next++) {
        const begun = process.hrtime.bigint();
        await side.write(slot, sequence);
        latencies[sequence] = Number(process.hrtime.bigint() - begun) / 1e6;
      }
    }),
  );
  return { opsPerSecond: run.operations / (Number(process.hrtime.bigint() - started) / 1e9), latencies };
}

function percentile(sorted: Float64Array, fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
}
