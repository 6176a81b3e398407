import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckpointWriteCondition, RedisCheckpointStorage, RedisLeaseStrategy } from '../../runtime/index.js';
import { startRedisServer, type RedisServerProcess } from '../support/redis/index.js';
import { builtBin, jsonRows, runCli } from './support/operator-cli.js';

// A keyspace of 200,000 unrelated keys around two subscriptions. A server of its own: the suite watches every command
// the CLI sends with MONITOR, which must see nothing but the CLI.

const unrelatedKeys = 200_000;
let server: RedisServerProcess;
let admin: Redis;
let url: string;

beforeAll(async () => {
  builtBin();
  server = await startRedisServer();
  admin = new Redis({ host: server.host, port: server.port });
  url = `redis://${server.host}:${server.port}`;
  const storage = RedisCheckpointStorage.forStandalone(admin);
  const strategy = new RedisLeaseStrategy(admin);
  for (const [id, version] of [
    ['orders', 7n],
    ['{tenant}-invoices', 3n],
  ] as const) {
    await strategy.raiseFencingTokenAbove(id, version);
    await storage.save(id, `cp-${id}`, CheckpointWriteCondition.notOlderThan(version));
  }
}, 180_000);

afterAll(async () => {
  admin.disconnect();
  await server.stop();
});

describe('inspect over a large keyspace', { timeout: 120_000 }, () => {
  it('finishes, shows progress on stderr beyond 10,000 keys, reads with SCAN … COUNT only, and its memory does not grow with the keys', async () => {
    const small = await runCli(['inspect', '--redis', url, '--json']);
    expect(small.stderr).toBe('');
    // Rows come in the order the scan finds them.
    expect(
      jsonRows(small)
        .map((row) => [row.id, row.flags])
        .sort(),
    ).toEqual([
      ['orders', ['expired-lease']],
      ['{tenant}-invoices', ['expired-lease']],
    ]);

    // Key names of 100 bytes, so that keeping them would show.
    const padding = 'x'.repeat(80);
    for (let start = 0; start < unrelatedKeys; start += 10_000) {
      const pipeline = admin.pipeline();
      for (let batch = start; batch < start + 10_000; batch += 1_000) {
        pipeline.mset(
          Array.from({ length: 1_000 }, (_, offset) => [`unrelated:${padding}:${batch + offset}`, 'v']).flat(),
        );
      }
      await pipeline.exec();
    }
    expect(await admin.dbsize()).toBe(unrelatedKeys + 6);

    const watcher = admin.duplicate();
    const monitor = await watcher.monitor();
    const commands: string[][] = [];
    monitor.on('monitor', (_time: string, args: string[]) => {
      commands.push(args);
    });
    // A heap of 16 MiB could not hold the keys (some 25 MiB as JS strings): the run finishing proves it keeps none.
    const large = await runCli(['inspect', '--redis', url], { nodeOptions: ['--max-old-space-size=16'] });
    monitor.disconnect();
    watcher.disconnect();

    expect(large.status).toBe(1);
    expect(large.stdout).toMatch(
      /^2 subscriptions, 2 flagged \(expired-lease 2\); 200,006 keys scanned \(redis:\/\/127\.0\.0\.1:\d+, \d+\.\d s\)$/mu,
    );
    const progress = large.stderr.split('\n').filter((line) => line !== '');
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.slice(0, -1).every((line) => /^inspect: [\d,]+ keys scanned…$/u.test(line))).toBe(true);
    expect(Number(progress[0]?.replace(/\D/gu, ''))).toBeGreaterThan(10_000);
    expect(progress.at(-1)).toMatch(/^inspect: 200,006 keys scanned in \d+\.\d s$/u);

    const names = new Set(commands.map(([name]) => name?.toLowerCase()));
    expect([...names].sort()).toEqual(['client', 'get', 'info', 'mget', 'pttl', 'scan']);
    const scans = commands.filter(([name]) => name?.toLowerCase() === 'scan');
    // First the partition counts of the memberships (a SCAN MATCH, answered with none here), then every key.
    const memberships = scans.filter((args) => args[2]?.toUpperCase() === 'MATCH');
    const everyKey = scans.filter((args) => args[2]?.toUpperCase() !== 'MATCH');
    expect(memberships.length).toBeGreaterThanOrEqual(unrelatedKeys / 1_000);
    expect(
      memberships.every((args) => args[3] === 'checkpoint-fencing:members:{*}:partitions' && args[5] === '1000'),
    ).toBe(true);
    expect(everyKey.length).toBeGreaterThanOrEqual(unrelatedKeys / 1_000);
    expect(
      everyKey.every((args) => args.length === 4 && args[2]?.toUpperCase() === 'COUNT' && args[3] === '1000'),
    ).toBe(true);

    expect(small.peakRssKiB).toBeGreaterThan(0);
    console.info(
      `inspect over ${unrelatedKeys.toLocaleString('en-US')} unrelated keys with a 16 MiB heap: ${(large.durationMs / 1_000).toFixed(1)} s, ` +
        `peak RSS ${(large.peakRssKiB / 1_024).toFixed(1)} MiB (over 6 keys: ${(small.peakRssKiB / 1_024).toFixed(1)} MiB)`,
    );
  });
});
