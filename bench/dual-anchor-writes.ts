import { availableParallelism } from 'node:os';
import { CheckpointWriteCondition } from '../runtime/index.js';
import { type DualAnchorToken } from '../runtime/dual-anchor-entry.js';
import type { AnchorBenchBackend } from './anchor-bench-backend.js';
import { comparePaired, formatComparison, loadAverage, type PairedRun } from './paired-throughput.js';
import { postgresAnchorBenchBackend } from './postgres-anchor-bench-backend.js';
import { redisAnchorBenchBackend } from './redis-anchor-bench-backend.js';

// Comparisons per backend, each side measured in one run through one client (one ioredis client with 64 writes in
// flight; one pg.Pool of 16 connections with 16 in flight), in short back-to-back pairs (see paired-throughput.ts).
// Issue 14 sets the two targets.
// 1. saveProcessed with a heartbeat against the backend's plain write of one field carrying as many bytes as the anchor
//    write stores or sends, the token's JSON.stringify padded to that size (target >= 0.9): what the targeted upsert
//    (validation, canonical JSON, the pair and its heartbeat in one write) costs over the least any store of a JSON
//    token must do;
// 2. the same against a plain write of a prepared string of that size, for reference (no target): the cost of
//    serialising the token shows as the difference between 1 and 2;
// 3. a fenced saveProcessed, notOlderThan(token) under a held lease, against the same write unfenced (target >= 0.85).

const rounds = Number(process.env['BENCH_ROUNDS'] ?? 15);
const operations = process.env['BENCH_OPERATIONS'];
const anchorTarget = 0.9;
const fencedTarget = 0.85;

/**
 * Resume tokens the size of a MongoDB change-stream token, made before the clock starts: the caller has its token in
 * hand, so neither side pays for making one. Each side cycles through as many distinct values of the same size.
 */
const distinctValues = 1_024;
const resumeTokens: readonly DualAnchorToken[] = Array.from({ length: distinctValues }, (_, sequence) => ({
  _data: `8265F0A1B200000001${String(sequence).padStart(12, '0')}2B022C0100296E5A1004AB12CD34EF56`,
  sequence: 1_000_000 + sequence,
}));

const settledAt = new Date('2024-05-01T10:00:00.123Z');
const confirmedAt = new Date('2024-05-01T10:00:01.456Z');

async function measureBackend(backend: AnchorBenchBackend): Promise<boolean> {
  const { store } = backend;
  const run: PairedRun = {
    inFlight: backend.inFlight,
    operations: operations === undefined ? backend.operations : Number(operations),
    rounds,
  };
  const valueBytes = await backend.plainValueBytes(resumeTokens[0] ?? 0, settledAt, confirmedAt);
  const padding = ' '.repeat(valueBytes - Buffer.byteLength(JSON.stringify(resumeTokens[0])));
  const preparedValues = Array.from({ length: distinctValues }, (_, index) => String(index).padStart(valueBytes, 'x'));
  const token = CheckpointWriteCondition.notOlderThan(7n);
  const saveProcessed = (prefix: string, fenced: boolean) => (slot: number, sequence: number) =>
    store.saveProcessed(
      `${prefix}-${slot}`,
      resumeTokens[sequence % distinctValues] ?? 0,
      settledAt,
      confirmedAt,
      fenced ? token : undefined,
    );

  console.log(
    `\n${backend.description}: ${run.rounds} pairs of ${run.operations} writes a side, ${run.inFlight} in flight, ` +
      `load average ${loadAverage()} at its start`,
  );
  const anchorWrite = { name: 'saveProcessed with a heartbeat', write: saveProcessed('bench-anchor', false) };
  const anchor = await comparePaired(
    {
      name: `plain ${backend.plainWriteName}, JSON.stringify (${valueBytes} B)`,
      write: (slot, sequence) =>
        backend.plainWrite(`bench-plain-${slot}`, JSON.stringify(resumeTokens[sequence % distinctValues]) + padding),
    },
    anchorWrite,
    run,
  );
  for (const line of formatComparison(anchor, 'saveProcessed / plain write', anchorTarget)) {
    console.log(`  ${line}`);
  }
  const prepared = await comparePaired(
    {
      name: `plain ${backend.plainWriteName}, prepared (${valueBytes} B)`,
      write: (slot, sequence) =>
        backend.plainWrite(`bench-prepared-${slot}`, preparedValues[sequence % distinctValues] ?? ''),
    },
    anchorWrite,
    run,
  );
  for (const line of formatComparison(prepared, 'saveProcessed / plain write of a prepared string')) {
    console.log(`  ${line}`);
  }
  const fencing = await comparePaired(
    { name: 'saveProcessed with a heartbeat, unfenced', write: saveProcessed('bench-unfenced', false) },
    { name: 'saveProcessed with a heartbeat, fenced', write: saveProcessed('bench-fenced', true) },
    run,
  );
  for (const line of formatComparison(fencing, 'fenced / unfenced', fencedTarget)) {
    console.log(`  ${line}`);
  }
  return anchor.ratio >= anchorTarget && fencing.ratio >= fencedTarget;
}

const available = { redis: redisAnchorBenchBackend, postgres: postgresAnchorBenchBackend };
const chosen = process.argv.slice(2);
const unknown = chosen.filter((name) => !(name in available));
if (unknown.length > 0) {
  throw new Error(`bench:anchors measures ${Object.keys(available).join(' and ')}, not ${unknown.join(', ')}.`);
}
const backends = Object.entries(available)
  .filter(([name]) => chosen.length === 0 || chosen.includes(name))
  .map(([, start]) => start);
console.log(
  `bench:anchors: Node ${process.version}, ${availableParallelism()} cores, load average ${loadAverage()} at the start`,
);
let met = true;
for (const start of backends) {
  const backend = await start();
  try {
    met = (await measureBackend(backend)) && met;
  } finally {
    await backend.close();
  }
}
console.log(`\nload average ${loadAverage()} at the end; targets ${met ? 'met' : 'NOT met'}`);
process.exitCode = met ? 0 : 1;
