import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckpointWriteCondition, RedisCheckpointStorage, RedisLeaseStrategy } from '../../runtime/index.js';
import {
  CheckpointKeyLayout,
  defaultRedisLeaseKeyPrefix,
  defaultRedisVersionKeyPrefix,
  redisLeaseKeys,
} from '../../runtime/store-layout-entry.js';
import { useSharedRedis } from '../support/redis/index.js';
import { temporaryDirectory } from '../support/temporary-directory.js';
import type { InspectionJsonRow } from '../../operator/inspection-report.js';
import { builtBin, jsonRows, runCli, textRows } from './support/operator-cli.js';

// Each state of issue 15 built on purpose on a real redis-server, with the storage's and the strategy's default
// layouts (the suite has a database of its own), then read by the spawned CLI in text and in JSON.

const shared = useSharedRedis();
const { notOlderThan, any } = CheckpointWriteCondition;
const longLeaseMs = 120_000;
const layout = new CheckpointKeyLayout('', defaultRedisVersionKeyPrefix);
let admin: Redis;
let url: string;
const strategies: RedisLeaseStrategy[] = [];

/** A node holding live leases: its strategy refreshes them until the suite ends. */
function liveNode(): RedisLeaseStrategy {
  const strategy = new RedisLeaseStrategy(shared.connect(), { leaseTimeMs: longLeaseMs, onError: () => undefined });
  strategies.push(strategy);
  return strategy;
}

/** What each subscription holds, and the flags `inspect` must raise for exactly that state. */
const expectedFlags: Record<string, readonly string[]> = {
  healthy: [],
  stuck: ['stuck'],
  'no-version': ['no-version'],
  stray: ['expired-lease'],
  expired: ['expired-lease'],
  '{tenant}-quiet': ['stuck'],
  'orders}v2': [],
  'bad-version': [],
};

beforeAll(async () => {
  builtBin();
  admin = shared.connect();
  url = `redis://${shared.host}:${shared.port}/${shared.database}`;
  const storage = RedisCheckpointStorage.forStandalone(shared.connect());
  const node = liveNode();

  // healthy: a live lease, its token stored as the version.
  await node.register('healthy', 'node-a');
  await storage.save('healthy', 'cp-healthy', notOlderThan(node.fencingToken('healthy') ?? -1n));

  // stuck: written with token 5, then the token counter deleted under the live lease: the next grant mints 0.
  await node.raiseFencingTokenAbove('stuck', 4n);
  await node.register('stuck', 'node-a');
  expect(node.fencingToken('stuck')).toBe(5n);
  await storage.save('stuck', 'cp-stuck', notOlderThan(5n));
  expect(await admin.del(redisLeaseKeys(defaultRedisLeaseKeyPrefix, 'stuck').token)).toBe(1);

  // no-version: a live lease, but the checkpoint written with any(), as a pre-fencing release would.
  await node.register('no-version', 'node-a');
  await storage.save('no-version', 'cp-any', any());

  // stray: a version whose checkpoint key was deleted by hand, after the consumers stopped: a fence, as reset leaves
  // it, not flagged stray (ADR 1004).
  await storage.save('stray', 'cp-stray', notOlderThan(3n));
  await node.raiseFencingTokenAbove('stray', 3n);
  expect(await admin.del(layout.keysFor('stray').checkpointKey)).toBe(1);

  // expired: a holder that stopped without releasing; its 300 ms lease runs out by the server's clock.
  const crashingClient = shared.connect();
  const crashing = new RedisLeaseStrategy(crashingClient, { leaseTimeMs: 300, onError: () => undefined });
  await crashing.register('expired', 'node-b');
  await storage.save('expired', 'cp-expired', notOlderThan(crashing.fencingToken('expired') ?? -1n));
  crashingClient.disconnect();
  await crashing.shutdown();
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(await admin.exists(redisLeaseKeys(defaultRedisLeaseKeyPrefix, 'expired').lease)).toBe(0);

  // A tagged id with no lease keys, found by its checkpoint key's tag; and a version key of a tagged id with nothing
  // else left, whose id nothing names.
  await storage.save('{tenant}-quiet', 'cp-quiet', notOlderThan(1n));
  await storage.advanceWriteVersion('{tenant}-gone', 2n);

  // An id Cluster could not align is fenced on a standalone server (forStandalone): nothing to flag here.
  await node.register('orders}v2', 'node-a');
  await storage.save('orders}v2', 'cp-unaligned', notOlderThan(0n));

  // bad-version: a version key written by hand, not as a canonical decimal.
  await node.register('bad-version', 'node-a');
  await storage.save('bad-version', 'cp-bad', any());
  await admin.set(layout.keysFor('bad-version').versionKey, '007');
}, 180_000);

afterAll(async () => {
  await Promise.all(strategies.map((strategy) => strategy.shutdown()));
});

describe('inspect --redis on a real redis-server', { timeout: 60_000 }, () => {
  it('flags exactly the state each subscription was put in, in JSON, and exits 1', async () => {
    const run = await runCli(['inspect', '--redis', url, '--json']);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(1);
    const rows = jsonRows(run);
    const byId = new Map(rows.map((row) => [row.id, row]));
    for (const [id, flags] of Object.entries(expectedFlags)) {
      expect(byId.get(id)?.flags, id).toEqual(flags);
    }
    const orphan = rows.filter((row) => row.id === null);
    expect(orphan).toEqual([
      expect.objectContaining({
        storedVersion: '2',
        flags: ['stray-version'],
        records: { version: layout.keysFor('{tenant}-gone').versionKey },
      }),
    ]);
    expect(rows).toHaveLength(Object.keys(expectedFlags).length + 1);

    expect(byId.get('healthy')).toMatchObject<Partial<InspectionJsonRow>>({
      checkpoint: 'cp-healthy',
      storedVersion: '0',
      leaseToken: '0',
      nextToken: '1',
      problems: [],
    });
    expect(byId.get('healthy')?.leaseHolder).toMatch(/^node-a [0-9a-f-]{36}\/\d+$/u);
    expect(byId.get('healthy')?.expiresInMs).toBeGreaterThan(longLeaseMs / 2);
    expect(byId.get('stuck')).toMatchObject({ storedVersion: '5', leaseToken: '5', nextToken: '0' });
    expect(byId.get('stray')).toMatchObject({
      checkpoint: null,
      storedVersion: '3',
      leaseHolder: null,
      nextToken: '4',
    });
    expect(byId.get('expired')).toMatchObject({ leaseHolder: null, expiresInMs: null, nextToken: '1' });
    expect(byId.get('bad-version')?.problems).toEqual([expect.stringMatching(/holds "007", not a canonical/u)]);
    expect(byId.get('stuck')?.records).toEqual({
      checkpoint: 'stuck',
      version: layout.keysFor('stuck').versionKey,
      ...redisLeaseKeys(defaultRedisLeaseKeyPrefix, 'stuck'),
    });
  });

  it('shows the same flags in the text table, with the problem on a line of its own', async () => {
    const run = await runCli(['inspect', '--redis', url]);
    expect(run.status).toBe(1);
    const rows = textRows(run);
    for (const [id, flags] of Object.entries(expectedFlags)) {
      expect(rows.get(id)?.at(-1), id).toBe(flags.length === 0 ? '-' : flags.join(','));
    }
    expect(rows.get('stuck')?.slice(1, 7)).toEqual([
      'cp-stuck',
      '5',
      expect.stringMatching(/^node-a [0-9a-f]{8}\/\d+$/u),
      '5',
      expect.stringMatching(/^\d+\.\d s$/u),
      '0',
    ]);
    expect(rows.get('?')?.at(-1)).toBe('stray-version');
    expect(run.stdout).toMatch(/^! subscription "bad-version": Version key .* holds "007"/mu);
    expect(run.stdout).toMatch(
      /^9 subscriptions, 7 flagged \(stuck 2, stray-version 1, no-version 1, expired-lease 2, problems 1\); \d+ keys scanned \(redis:\/\/127\.0\.0\.1:\d+\/\d+, \d+\.\d s\)$/mu,
    );
  });

  it('reads the same with the ioredis 6 of the project it runs in', async () => {
    const project = temporaryDirectory('ioredis6-project');
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'app', private: true }));
    mkdirSync(join(project, 'node_modules'));
    symlinkSync(
      resolve(import.meta.dirname, '../../node_modules/ioredis6'),
      join(project, 'node_modules/ioredis'),
      'dir',
    );
    const withoutExpiry = (rows: readonly InspectionJsonRow[]): unknown[] =>
      rows.map((row) => ({ ...row, expiresInMs: row.expiresInMs === null ? null : 'set' }));
    const [five, six] = await Promise.all([
      runCli(['inspect', '--redis', url, '--json']),
      runCli(['inspect', '--redis', url, '--json'], { cwd: project }),
    ]);
    expect(six.stderr).toBe('');
    expect(six.status).toBe(1);
    expect(withoutExpiry(jsonRows(six))).toEqual(withoutExpiry(jsonRows(five)));
  });

  it('reads only the ids it is given', async () => {
    const run = await runCli(['inspect', '--redis', url, '--json', 'healthy', 'stuck', 'never-written']);
    expect(run.status).toBe(1);
    expect(jsonRows(run).map((row) => [row.id, row.flags])).toEqual([
      ['healthy', []],
      ['stuck', ['stuck']],
      ['never-written', []],
    ]);
    const healthy = await runCli(['inspect', '--redis', url, 'healthy']);
    expect(healthy.status).toBe(0);
    expect(healthy.stdout).toMatch(/^1 subscription, all healthy; 1 ids read \(redis:/mu);
  });
});

describe('repair --raise-token and reset on a real redis-server', { timeout: 60_000 }, () => {
  it('repair without --yes says what it would do and changes nothing; with --yes the next grant mints above the stored version', async () => {
    const tokenKey = redisLeaseKeys(defaultRedisLeaseKeyPrefix, 'stuck').token;
    const dryRun = await runCli(['repair', 'stuck', '--raise-token', '--redis', url]);
    expect(dryRun).toMatchObject({ status: 0, stderr: '' });
    expect(dryRun.stdout).toBe(
      'would raise the token counter of "stuck" to its stored version 5: the next grant would mint 6 instead of 0, fence, ' +
        'and resume from checkpoint "cp-stuck" with nothing replayed. Nothing was changed; run again with --yes to do it.\n',
    );
    expect(await admin.exists(tokenKey)).toBe(0);

    const repaired = await runCli(['repair', 'stuck', 'healthy', '--raise-token', '--yes', '--redis', url]);
    expect(repaired).toMatchObject({ status: 0, stderr: '' });
    expect(repaired.stdout).toBe(
      'raised the token counter of "stuck" to 5: the next grant mints 6, fences, and resumes from checkpoint "cp-stuck" ' +
        'with nothing replayed.\n' +
        '"healthy": not stuck: the next grant mints 1, above the stored version 0; nothing to raise.\n',
    );
    expect(await admin.get(tokenKey)).toBe('5');
    const after = await runCli(['inspect', '--redis', url, '--json', 'stuck']);
    expect(jsonRows(after)[0]).toMatchObject({ flags: [], nextToken: '6', storedVersion: '5' });
  });

  it('reset without --yes warns and changes nothing; with --yes the checkpoint is gone and the version fences above every token', async () => {
    const { checkpointKey, versionKey } = layout.keysFor('expired');
    const tokenKey = redisLeaseKeys(defaultRedisLeaseKeyPrefix, 'expired').token;
    const warning =
      'warning: resetting "expired" deletes its checkpoint "cp-expired": delivery restarts from the ' +
      "subscription's start position (the startPosition given to subscribe, or the beginning of its source), and every event since is delivered again.\n";
    const dryRun = await runCli(['reset', 'expired', '--redis', url]);
    expect(dryRun.status).toBe(0);
    expect(dryRun.stderr).toBe(warning);
    expect(dryRun.stdout).toBe(
      'would raise the token counter and the stored version of "expired" to 1, above every token minted for it, and delete its ' +
        `checkpoint (keys "${checkpointKey}" and "${versionKey}"): every earlier holder's write would be refused, and the next grant ` +
        'would mint 2 and deliver from the start position. Nothing was changed; run again with --yes to do it.\n',
    );
    expect(await admin.mget(checkpointKey, versionKey, tokenKey)).toEqual(['cp-expired', '0', '0']);

    const reset = await runCli(['reset', 'expired', '--yes', '--redis', url]);
    expect(reset.status).toBe(0);
    expect(reset.stderr).toBe(warning);
    expect(reset.stdout).toBe(
      'reset "expired": deleted its checkpoint and fenced it at version 1, above every token minted for it: every earlier ' +
        "holder's write is refused, and the next grant mints 2 and delivers from the start position.\n",
    );
    expect(await admin.mget(checkpointKey, versionKey, tokenKey)).toEqual([null, '1', '1']);
    const after = await runCli(['inspect', '--redis', url, '--json', 'expired']);
    expect(jsonRows(after)[0]).toMatchObject({ checkpoint: null, storedVersion: '1', flags: ['expired-lease'] });
  });

  it('reset refuses a subscription with a live lease, whose holder would write over the reset, and changes nothing', async () => {
    const run = await runCli(['reset', 'no-version', '--yes', '--redis', url]);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(
      /^checkpoint-fencing reset: "no-version" has a live lease \(holder "node-a [^"]+", token 0, expires in \d+\.\d s\): its holder keeps delivering .* nothing was changed; stop every consumer of it, wait until inspect shows no holder, and run reset again\.\n$/u,
    );
    expect(await admin.get(layout.keysFor('no-version').checkpointKey)).toBe('cp-any');
  });

  it('refuses an id with nothing stored, and changes none of the others', async () => {
    const run = await runCli(['reset', 'healthy', 'typo', '--yes', '--redis', url]);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      `checkpoint-fencing reset: nothing is stored for subscription "typo" (keys "typo" and "${layout.keysFor('typo').versionKey}") on ` +
        `${url}, so nothing was changed; check the id and --key-prefix, --version-key-prefix and --lease-key-prefix.\n`,
    );
    expect(await admin.exists(layout.keysFor('healthy').checkpointKey)).toBe(1);
  });
});

describe('inspect --key-prefix on a redis-server two services share', { timeout: 60_000 }, () => {
  // Two services, each with its storage's keyPrefix and its strategy's lease key prefix, and the default version-key
  // prefix: each service's version keys carry its checkpoint key (or tag) in their hash tag, under one shared prefix.
  const twoServices = useSharedRedis();
  const services: RedisLeaseStrategy[] = [];

  afterAll(async () => {
    await Promise.all(services.map((strategy) => strategy.shutdown()));
  });

  it('lists only the subscriptions under the prefix, flags nothing, and counts the version keys it left out', async () => {
    for (const service of ['svc-a', 'svc-b']) {
      const storage = RedisCheckpointStorage.forStandalone(twoServices.connect(), { keyPrefix: `${service}:` });
      const strategy = new RedisLeaseStrategy(twoServices.connect(), {
        keyPrefix: `${service}:lease:`,
        leaseTimeMs: longLeaseMs,
        onError: () => undefined,
      });
      services.push(strategy);
      // The tagged ids differ: the same tagged id under both prefixes would share one version key (its tag and the
      // hash of the id are all the version key holds).
      for (const id of ['payments', service === 'svc-a' ? '{tenant}-orders' : '{tenant}-refunds']) {
        await strategy.register(id, 'node-a');
        await storage.save(id, `cp-${service}-${id}`, notOlderThan(strategy.fencingToken(id) ?? -1n));
      }
    }
    const scoped = [
      '--redis',
      `redis://${twoServices.host}:${twoServices.port}/${twoServices.database}`,
      '--key-prefix',
      'svc-a:',
      '--lease-key-prefix',
      'svc-a:lease:',
    ];

    const json = await runCli(['inspect', ...scoped, '--json']);
    expect(json.stderr).toBe('');
    expect(json.status).toBe(0);
    expect(
      jsonRows(json)
        .map((row) => [row.id, row.checkpoint, row.flags])
        .sort(),
    ).toEqual([
      ['payments', 'cp-svc-a-payments', []],
      ['{tenant}-orders', 'cp-svc-a-{tenant}-orders', []],
    ]);

    const text = await runCli(['inspect', ...scoped]);
    expect(text.status).toBe(0);
    expect(text.stdout).not.toMatch(/^\?/mu);
    expect(text.stdout).toMatch(
      /^2 subscriptions, all healthy; 16 keys scanned, 2 version keys outside --key-prefix left out \(redis:\/\/[^)]*\)$/mu,
    );
  });
});

describe('inspect over a key of another type', { timeout: 60_000 }, () => {
  const typed = useSharedRedis();

  it('lists the subscription once, by that key, with the problem on its row', async () => {
    const client = typed.connect();
    const { checkpointKey, versionKey } = layout.keysFor('typed');
    await client.mset(checkpointKey, 'cp-typed', versionKey, '3');
    // The token counter, ranked above the version key, is a hash: it exists, so the version key does not list it again.
    await client.hset(redisLeaseKeys(defaultRedisLeaseKeyPrefix, 'typed').token, 'token', '3');
    const run = await runCli(['inspect', '--redis', `redis://${typed.host}:${typed.port}/${typed.database}`, '--json']);
    expect(run.status).toBe(1);
    const rows = jsonRows(run);
    expect(rows.map((row) => [row.id, row.checkpoint, row.storedVersion])).toEqual([['typed', 'cp-typed', '3']]);
    expect(rows[0]?.problems).toEqual([expect.stringMatching(/^a key of typed is not a string: WRONGTYPE /u)]);
  });
});
