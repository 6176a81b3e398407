import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPartitionsDemo } from '../../examples/partitions/partitions-demo.js';
import { demoPartitions } from '../../examples/partitions/partitions-settings.js';
import { startRedisServer, type RedisServerProcess } from '../support/redis/index.js';

const repository = resolve(import.meta.dirname, '../..');
let compiled: string;
let server: RedisServerProcess;

// The nodes are processes of their own: they run a copy compiled from the current sources (under the repository's
// .tmp/, so their imports resolve from its node_modules), never a dist/ that may be stale. The demo writes its keys
// to database 0, so it gets a server of its own.
beforeAll(async () => {
  mkdirSync(join(repository, '.tmp'), { recursive: true });
  compiled = mkdtempSync(join(repository, '.tmp', 'partitions-'));
  execFileSync(process.execPath, [
    join(repository, 'node_modules/typescript/bin/tsc'),
    '-p',
    join(repository, 'examples/partitions/tsconfig.json'),
    '--outDir',
    compiled,
  ]);
  server = await startRedisServer();
}, 120_000);
afterAll(async () => {
  await server.stop();
  rmSync(compiled, { recursive: true, force: true });
});

describe('examples/partitions', () => {
  it("shows who owns what, refuses the stopped node's late write, moves the killed node's partitions", async () => {
    const said: string[] = [];
    const echoed: string[] = [];
    const outcome = await runPartitionsDemo({
      redis: `127.0.0.1:${server.port}`,
      nodeScript: join(compiled, 'examples/partitions/partition-node.js'),
      say: (line) => said.push(line),
      echo: (line) => echoed.push(line),
    });

    // Who owns what, as it changes: every node printed its share, and the three shares were disjoint and whole.
    for (const node of ['node-a', 'node-b', 'node-c']) {
      expect(
        echoed.some((line) => new RegExp(`^\\[${node}\\] owns [1-9]\\d* partitions: [\\d,]+$`, 'u').test(line)),
      ).toBe(true);
    }
    expect(said.filter((line) => line.startsWith('balanced'))).toHaveLength(2);

    // The stopped node's late write is refused by the partition's token, and only its own.
    const { partition } = outcome.refused;
    expect(echoed).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^\\[node-b\\] projection write of demo-orders/${partition} REFUSED: stored version [1-9]\\d* is newer than my token \\d+$`,
          'u',
        ),
      ),
    );
    expect(echoed.filter((line) => line.includes('REFUSED') && !line.startsWith('[node-b]'))).toEqual([]);

    // The killed node's partitions moved to the others, within the lease time plus the membership's settle window.
    expect(outcome.moved.partitions.length).toBeGreaterThan(0);
    expect(outcome.moved.afterMs).toBeLessThan(10_000);
    expect(said).toContainEqual(expect.stringMatching(/^every partition owned again \d+ ms after the kill/u));

    // Events per second for each process, and nothing left behind.
    for (const rates of Object.values(outcome.eventsPerSecond)) {
      expect(Math.max(...rates)).toBeGreaterThan(0);
    }
    expect(said.filter((line) => /^node-[abc]: median \d+ events\/s/u.test(line))).toHaveLength(3);
    expect(outcome.checkpoints).toHaveLength(demoPartitions);
    expect(outcome.logLength).toBeGreaterThan(0);
  }, 180_000);
});
