// The competing-consumers demo with metrics: two consumer processes compete for one subscription's lease over one
// Redis, A stops mid-event, B takes the lease over, and A's late write is refused. Each consumer registers
// OpenTelemetry's Prometheus exporter and serves /metrics on a free loopback port of its own; just before each is
// stopped the demo scrapes it, and prints the checkpoint_fencing samples where B's grant and A's refusal show. Usage:
//   npm run example:observability [-- --redis host:port]
// Without --redis it starts its own redis-server.
import { parseArgs } from 'node:util';
import { runCompetingConsumersDemo, type ConsumerName } from '../competing-consumers/competing-consumers-demo.js';
import { freeLoopbackPort } from '../../test/support/free-loopback-port.js';
import { startRedisServer } from '../../test/support/redis/index.js';

const say = (line: string): void => {
  console.log(`[observability demo] ${line}`);
};
const { values } = parseArgs({ options: { redis: { type: 'string' } } });
const ownServer = values.redis === undefined ? await startRedisServer() : undefined;
try {
  const metricsPorts: Record<ConsumerName, number> = { A: await freeLoopbackPort(), B: await freeLoopbackPort() };
  say(`A serves http://127.0.0.1:${metricsPorts.A}/metrics, B http://127.0.0.1:${metricsPorts.B}/metrics`);
  const { scraped } = await runCompetingConsumersDemo({
    redis: values.redis ?? `127.0.0.1:${ownServer?.port}`,
    metricsPorts,
    say,
    echo: (line) => {
      console.log(line);
    },
  });
  for (const name of ['A', 'B'] as const) {
    say(`what ${name}'s /metrics showed just before it stopped (checkpoint_fencing samples, buckets left out):`);
    for (const line of scraped?.[name].split('\n') ?? []) {
      if (line.startsWith('checkpoint_fencing_') && !line.includes('_bucket')) {
        console.log(`  ${line}`);
      }
    }
  }
} catch (error) {
  say(`FAILED: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await ownServer?.stop();
}
