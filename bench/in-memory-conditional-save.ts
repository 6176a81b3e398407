import { CheckpointWriteCondition, InMemoryCheckpointStorage } from '../runtime/index.js';

// In-memory conditional-save throughput against a plain Map.set baseline, measured side by side in one run.
// Variants run interleaved, round after round, so drift on a shared machine hits them all alike; the median round counts.

const operations = Number(process.env.BENCH_OPERATIONS ?? 200_000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 7);
const ids = Array.from({ length: 1_000 }, (_, index) => `subscription-${index}`);

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
    'save notOlderThan(token)',
    async (count) => {
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
];

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

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

const baseline = median(samples.get('Map.set (baseline)') ?? []);
const asyncBaseline = median(samples.get('await async Map.set') ?? []);
console.log(
  `in-memory conditional save: ${operations} writes × ${rounds} rounds over ${ids.length} ids, median round (Node ${process.version})`,
);
for (const [name] of variants) {
  const opsPerSecond = median(samples.get(name) ?? []);
  console.log(
    `${name.padEnd(26)} ${Math.round(opsPerSecond).toLocaleString('en-US').padStart(13)} ops/s` +
      `  ratio to Map.set ${(opsPerSecond / baseline).toFixed(3)}` +
      `  ratio to async Map.set ${(opsPerSecond / asyncBaseline).toFixed(3)}`,
  );
}
