import { afterEach, describe, expect, it } from 'vitest';
import { runFenceYourOwnWritesDemo } from '../../examples/fence-your-own-writes/zombie-demo.js';
import { serveMetrics, type MetricsEndpoint } from '../../examples/observability/serve-metrics.js';
import { freeLoopbackPort } from '../support/free-loopback-port.js';
import { useSharedRedis } from '../support/redis/index.js';

const redis = useSharedRedis();
let endpoint: MetricsEndpoint | undefined;
afterEach(async () => {
  await endpoint?.stop();
});

/** The value of the one sample of `name` whose labels include each of `labels`, summed over the matching samples. */
function sample(scraped: string, name: string, labels: readonly string[] = []): number {
  return scraped
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) && labels.every((label) => line.includes(label)))
    .reduce((total, line) => total + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

describe('examples/observability', () => {
  it('serves /metrics over HTTP where the hand-over and the zombie refused show', async () => {
    endpoint = await serveMetrics(await freeLoopbackPort());
    await runFenceYourOwnWritesDemo(
      () => redis.connect(),
      () => undefined,
    );
    const response = await fetch(endpoint.url);
    expect(response.status).toBe(200);
    const scraped = await response.text();

    expect(sample(scraped, 'checkpoint_fencing_lease_grants_total')).toBeGreaterThanOrEqual(2);
    expect(sample(scraped, 'checkpoint_fencing_subscription_refusals_total')).toBe(1);
    expect(
      sample(scraped, 'checkpoint_fencing_checkpoint_writes_total', [
        'checkpoint_fencing_outcome="refused"',
        'checkpoint_fencing_backend="redis"',
        'checkpoint_fencing_condition="not_older_than"',
      ]),
    ).toBe(1);
    expect(sample(scraped, 'checkpoint_fencing_subscription_events_total')).toBeGreaterThanOrEqual(30);
    // Seconds-sized buckets, not the SDK's default ones (0 to 10 000), which would put every write in the first.
    expect(scraped).toMatch(/^checkpoint_fencing_checkpoint_write_duration_bucket\{.*le="0\.001"\} \d+$/mu);
  });
});
