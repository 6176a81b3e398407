import { availableParallelism, loadavg } from 'node:os';
import {
  CheckpointWriteCondition,
  FencedCheckpointWriter,
  InMemoryCheckpointStorage,
  type CheckpointWriteCondition as Condition,
} from '../runtime/index.js';

// In-memory conditional-save throughput against a plain Map.set baseline, measured side by side in one run.
// Variants run interleaved, round after round, so drift on a shared machine hits them all alike. Throughput is the
// median round; a ratio is the median of the ratios within each round, which load that changes between rounds
// disturbs less than a ratio of two medians.
// Targets (issue 11): save with notOlderThan >= 0.9x an awaited async Map.set and >= 0.5x a plain Map.set.

const operations = Number(process.env['BENCH_OPERATIONS'] ?? 200_000);
const rounds = Number(process.env['BENCH_ROUNDS'] ?? 15);
const ids = Array.from({ length: 1_000 }, (_, index) => `subscription-${index}`);
/** A hand-over every this many writes: a lease's token, and so its condition, changes only then. */
const writesPerLease = 1_000;
const targets = { asyncMapSet: 0.9, mapSet: 0.5 } as const;

type Variant = readonly [name: string, run: (count: number) => Promise<void>];

const variants: readonly Variant[] = [
  [
    'Map.set (baseline)',
    async (count) => {
      const map = new Map<string, { checkpoint: string; version: bigint }>();
      for (let index = 0; index < count; index += 1) {
        map.set(ids[index % ids.length] ?? '', { checkpoint: `position-${index}`, version: BigInt(index) });
      }
    },
  ],
  [
    'await async Map.set',
    async (count) => {
      const map = new Map<string, { checkpoint: string; version: bigint }>();
      const set = async (id: string, checkpoint: string, version: bigint): Promise<string> => {
        map.set(id, { checkpoint, version });
        return checkpoint;
      };
      for (let index = 0; index < count; index += 1) {
        await set(ids[index % ids.length] ?? '', `position-${index}`, BigInt(index));
      }
    },
  ],
  [
    'save notOlderThan, per lease',
    async (count) => {
      // What FencedCheckpointWriter and DurableSubscription send: the condition of the lease's token, made at a
      // hand-over and reused for every write until the next one.
      const storage = new InMemoryCheckpointStorage();
      let condition: Condition = CheckpointWriteCondition.any();
      for (let index = 0; index < count; index += 1) {
        if (index % writesPerLease === 0) {
          condition = CheckpointWriteCondition.notOlderThan(index);
        }
        await storage.save(ids[index % ids.length] ?? '', `position-${index}`, condition);
      }
    },
  ],
  [
    'save notOlderThan, per write',
    async (count) => {
      // A new frozen condition for every write: what a caller pays that builds notOlderThan(token) each time.
      const storage = new InMemoryCheckpointStorage();
      for (let index = 0; index < count; index += 1) {
        await storage.save(
          ids[index % ids.length] ?? '',
          `position-${index}`,
          CheckpointWriteCondition.notOlderThan(index),
        );
      }
    },
  ],
  [
    'save any()',
    async (count) => {
      const storage = new InMemoryCheckpointStorage();
      const any = CheckpointWriteCondition.any();
      for (let index = 0; index < count; index += 1) {
        await storage.save(ids[index % ids.length] ?? '', `position-${index}`, any);
      }
    },
  ],
  [
    'FencedCheckpointWriter.save',
    async (count) => {
      // The writer asks its token source before every write and checks the arguments again (see its TSDoc).
      let token = 0n;
      const writer = new FencedCheckpointWriter(new InMemoryCheckpointStorage(), { fencingToken: () => token });
      for (let index = 0; index < count; index += 1) {
        if (index % writesPerLease === 0) {
          token = BigInt(index);
        }
        await writer.save(ids[index % ids.length] ?? '', `position-${index}`);
      }
    },
  ],
];

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

const loadBefore = loadavg()[0] ?? Number.NaN;
const samples = new Map<string, number[]>(variants.map(([name]) => [name, []]));
for (const [, runVariant] of variants) {
  await runVariant(operations / 10);
}
for (let round = 0; round < rounds; round += 1) {
  for (const [name, runVariant] of variants) {
    const started = process.hrtime.bigint();
    await runVariant(operations);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    samples.get(name)?.push(operations / seconds);
  }
}

/** The median over rounds of `name`'s throughput divided by `baselineName`'s in the same round. */
function ratio(name: string, baselineName: string): number {
  const mine = samples.get(name) ?? [];
  const theirs = samples.get(baselineName) ?? [];
  return median(mine.map((opsPerSecond, round) => opsPerSecond / (theirs[round] ?? Number.NaN)));
}

console.log(
  `in-memory conditional save: ${operations} writes × ${rounds} rounds over ${ids.length} ids, median round (Node ${process.version}), ` +
    `load average ${loadBefore.toFixed(1)} before and ${(loadavg()[0] ?? Number.NaN).toFixed(1)} after, on ${availableParallelism()} cores`,
);
for (const [name] of variants) {
  const opsPerSecond = median(samples.get(name) ?? []);
  console.log(
    `${name.padEnd(30)} ${Math.round(opsPerSecond).toLocaleString('en-US').padStart(13)} ops/s` +
      `  ${(1e9 / opsPerSecond).toFixed(0).padStart(4)} ns/op` +
      `  ratio to Map.set ${ratio(name, 'Map.set (baseline)').toFixed(3)}` +
      `  ratio to async Map.set ${ratio(name, 'await async Map.set').toFixed(3)}`,
  );
}
for (const name of ['save notOlderThan, per lease', 'save notOlderThan, per write']) {
  const [toAsync, toSync] = [ratio(name, 'await async Map.set'), ratio(name, 'Map.set (baseline)')];
  console.log(
    `target ${name}: >= ${targets.asyncMapSet} × async Map.set (${toAsync.toFixed(3)}: ${toAsync >= targets.asyncMapSet ? 'met' : 'NOT met'}), ` +
      `>= ${targets.mapSet} × Map.set (${toSync.toFixed(3)}: ${toSync >= targets.mapSet ? 'met' : 'NOT met'})`,
  );
}
