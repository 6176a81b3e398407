import { beforeAll, describe, expect, it } from 'vitest';
import {
  CheckpointKeyLayout,
  defaultRedisLeaseKeyPrefix,
  defaultRedisVersionKeyPrefix,
  redisLeaseKeys,
} from '../../runtime/store-layout-entry.js';
import type { InspectionJsonRow } from '../../operator/inspection-report.js';
import { useSharedRedis } from '../support/redis/index.js';
import { drainWaits, inspectInProcess, reportTiming } from './support/in-process-inspect.js';

// inspect prints as it scans: 3,000 healthy subscriptions (12,000 keys, so that progress shows) read in-process, where
// the order of stdout and stderr writes is one sequence. The report must start before the scan ends, and no write may
// hold more rows than one SCAN reply lists.

const shared = useSharedRedis();
const subscriptions = 3_000;
const ids = Array.from({ length: subscriptions }, (_, index) => `sub-${index.toString().padStart(4, '0')}`);
let url: string;

beforeAll(async () => {
  url = `redis://${shared.host}:${shared.port}/${shared.database}`;
  const admin = shared.connect();
  const layout = new CheckpointKeyLayout('', defaultRedisVersionKeyPrefix);
  const pipeline = admin.pipeline();
  for (const id of ids) {
    const { checkpointKey, versionKey } = layout.keysFor(id);
    const lease = redisLeaseKeys(defaultRedisLeaseKeyPrefix, id);
    pipeline.mset(checkpointKey, `cp-${id}`, versionKey, '4', lease.token, '4');
    pipeline.set(lease.lease, `4 node-a 6f1c2d3e-9b8a-4c7d-8e6f-5a4b3c2d1e0f/1`, 'PX', 600_000);
  }
  await pipeline.exec();
});

describe('inspect --redis streams', { timeout: 60_000 }, () => {
  it('prints JSON rows while it scans, one valid array listing each subscription once', async () => {
    const run = await inspectInProcess(['--redis', url, '--json']);
    expect(run.code).toBe(0);
    const timing = reportTiming(run, (text) => text.match(/^ {4}"id": /gmu)?.length ?? 0);
    expect(timing.readEnded).toBeGreaterThan(0);
    expect(timing.firstRow).toBeGreaterThanOrEqual(0);
    expect(timing.firstRow).toBeLessThan(timing.readEnded);
    expect(timing.mostRowsInOneWrite).toBeLessThanOrEqual(1_000);
    const stdout = run.writes.flatMap((write) => (write.stream === 'out' ? [write.text] : [])).join('');
    const rows = JSON.parse(stdout) as InspectionJsonRow[];
    expect(rows.map((row) => row.id).sort()).toEqual(ids);
    expect(rows.every((row) => row.flags.length === 0 && row.problems.length === 0)).toBe(true);
  });

  it('prints text rows while it scans, then the summary counted over all of them', async () => {
    const run = await inspectInProcess(['--redis', url]);
    expect(run.code).toBe(0);
    const timing = reportTiming(run, (text) => text.match(/^sub-\d{4} /gmu)?.length ?? 0);
    expect(timing.firstRow).toBeGreaterThanOrEqual(0);
    expect(timing.firstRow).toBeLessThan(timing.readEnded);
    const stdout = run.writes.flatMap((write) => (write.stream === 'out' ? [write.text] : [])).join('');
    expect(stdout.match(/^sub-\d{4} /gmu)).toHaveLength(subscriptions);
    expect(stdout).toMatch(/\n3000 subscriptions, all healthy; 12,000 keys scanned \(redis:[^)]*\)\n$/u);
  });

  it('reads no further while stdout is full: each write of rows waits for the drain of the one before', async () => {
    // stdout drains 20 ms after each write, as under a reader slower than the store.
    const run = await inspectInProcess(['--redis', url, '--json'], 20);
    expect(run.code).toBe(0);
    const waits = drainWaits(run, (text) => text.match(/^ {4}"id": /gmu)?.length ?? 0);
    expect(waits.rowWrites).toBeGreaterThan(2);
    expect(waits.unwaited).toBe(0);
  });
});
