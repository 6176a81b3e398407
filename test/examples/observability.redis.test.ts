import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  runCompetingConsumersDemo,
  type CompetingConsumersDemoOutcome,
} from '../../examples/competing-consumers/competing-consumers-demo.js';
import { freeLoopbackPort } from '../support/free-loopback-port.js';
import { compiledExample, type CompiledExample } from '../support/compiled-example.js';
import { startRedisServer, type RedisServerProcess } from '../support/redis/index.js';

let compiled: CompiledExample | undefined;
let server: RedisServerProcess | undefined;

// The consumers are processes of their own, running the example compiled from the current sources. The demo writes
// its keys to database 0, so it gets a server of its own rather than the shared one.
beforeAll(async () => {
  compiled = compiledExample('competing-consumers');
  server = await startRedisServer();
}, 120_000);
afterAll(async () => {
  await server?.stop();
  compiled?.remove();
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
      redis: `127.0.0.1:${server?.port ?? 0}`,
      metricsPorts: { A: await freeLoopbackPort(), B: await freeLoopbackPort() },
      consumerScript: join(compiled?.directory ?? '', 'examples/competing-consumers/consumer.js'),
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
