import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  runCompetingConsumersDemo,
  type CompetingConsumersDemoOutcome,
} from '../../examples/competing-consumers/competing-consumers-demo.js';
import { freeLoopbackPort } from '../support/free-loopback-port.js';
import { startRedisServer, type RedisServerProcess } from '../support/redis/index.js';

const repository = resolve(import.meta.dirname, '../..');
let compiled: string;
let server: RedisServerProcess;

// The consumers are processes of their own: they run a copy compiled from the current sources (under the
// repository's .tmp/, so their imports resolve from its node_modules), never a dist/ that may be stale. The demo
// writes its keys to database 0, so it gets a server of its own rather than the shared one.
beforeAll(async () => {
  mkdirSync(join(repository, '.tmp'), { recursive: true });
  compiled = mkdtempSync(join(repository, '.tmp', 'competing-consumers-'));
  execFileSync(process.execPath, [
    join(repository, 'node_modules/typescript/bin/tsc'),
    '-p',
    join(repository, 'examples/competing-consumers/tsconfig.json'),
    '--outDir',
    compiled,
  ]);
  server = await startRedisServer();
}, 120_000);
afterAll(async () => {
  await server.stop();
  rmSync(compiled, { recursive: true, force: true });
});

/** The sum of the samples of `name` whose labels include each of `labels`. */
function sample(scraped: string, name: string, labels: readonly string[] = []): number {
  return scraped
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) && labels.every((label) => line.includes(label)))
    .reduce((total, line) => total + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

describe('examples/observability', () => {
  it('serves each consumer’s /metrics over HTTP, where B’s hand-over and A’s refused write show', async () => {
    const outcome: CompetingConsumersDemoOutcome = await runCompetingConsumersDemo({
      redis: `127.0.0.1:${server.port}`,
      metricsPorts: { A: await freeLoopbackPort(), B: await freeLoopbackPort() },
      consumerScript: join(compiled, 'examples/competing-consumers/consumer.js'),
      say: () => undefined,
      echo: () => undefined,
    });
    const { A: a = '', B: b = '' } = outcome.scraped ?? {};

    expect(
      sample(a, 'checkpoint_fencing_checkpoint_writes_total', [
        'checkpoint_fencing_outcome="refused"',
        'checkpoint_fencing_backend="redis"',
        'checkpoint_fencing_condition="not_older_than"',
      ]),
    ).toBe(1);
    expect(sample(a, 'checkpoint_fencing_subscription_refusals_total')).toBe(1);
    expect(sample(b, 'checkpoint_fencing_lease_grants_total')).toBe(1);
    expect(sample(b, 'checkpoint_fencing_subscription_refusals_total')).toBe(0);
    expect(
      sample(a, 'checkpoint_fencing_subscription_events_total') +
        sample(b, 'checkpoint_fencing_subscription_events_total'),
    ).toBeGreaterThan(0);
    // Seconds-sized buckets, not the SDK's default ones (0 to 10 000), which would put every write in the first.
    expect(b).toMatch(/^checkpoint_fencing_checkpoint_write_duration_bucket\{.*le="0\.001"\} \d+$/mu);
  }, 120_000);
});
