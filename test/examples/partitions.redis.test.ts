import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPartitionsDemo } from '../../examples/partitions/partitions-demo.js';
import { demoPartitions } from '../../examples/partitions/partitions-settings.js';
import { compiledExample, type CompiledExample } from '../support/compiled-example.js';
import { startRedisServer, type RedisServerProcess } from '../support/redis/index.js';

let compiled: CompiledExample | undefined;
let server: RedisServerProcess | undefined;

// The nodes are processes of their own, running the example compiled from the current sources. The demo writes its
// keys to database 0, so it gets a server of its own.
beforeAll(async () => {
  compiled = compiledExample('partitions');
  server = await startRedisServer();
}, 120_000);
afterAll(async () => {
  await server?.stop();
  compiled?.remove();
});

describe('examples/partitions', () => {
  it("shows who owns what, refuses the stopped node's late write, moves the killed node's partitions", async () => {
    const said: string[] = [];
    const echoed: string[] = [];
    const outcome = await runPartitionsDemo({
      redis: `127.0.0.1:${server?.port ?? 0}`,
      nodeScript: join(compiled?.directory ?? '', 'examples/partitions/partition-node.js'),
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
