// The competing-consumers story with metrics: two nodes compete for one subscription's lease over one Redis (the
// fence-your-own-writes demo), one of them freezes, the other takes the lease over, and the frozen one's late write is
// refused. Its hand-overs and refusals are served at /metrics by OpenTelemetry's Prometheus exporter. Usage:
//   npm run example:observability [-- --redis host:port] [--port 9464] [--serve]
// Without --redis it starts its own redis-server. With --serve it keeps serving /metrics until Ctrl-C.
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { startRedisServer } from '../../test/support/redis/index.js';
import { runFenceYourOwnWritesDemo } from '../fence-your-own-writes/zombie-demo.js';
import { serveMetrics } from './serve-metrics.js';

const say = (line: string): void => {
  console.log(`[observability demo] ${line}`);
};
const { values } = parseArgs({
  options: { redis: { type: 'string' }, port: { type: 'string' }, serve: { type: 'boolean' } },
});
const endpoint = await serveMetrics(Number(values.port ?? 9464));
const ownServer = values.redis === undefined ? await startRedisServer() : undefined;
const [host = '127.0.0.1', port = '6379'] = (values.redis ?? `127.0.0.1:${ownServer?.port}`).split(':');
try {
  say(`serving ${endpoint.url}; redis at ${host}:${port}`);
  await runFenceYourOwnWritesDemo(() => new Redis({ host, port: Number(port) }), say);
  const scraped = await (await fetch(endpoint.url)).text();
  say(`what ${endpoint.url} shows now (checkpoint_fencing samples, histogram buckets left out):`);
  for (const line of scraped.split('\n')) {
    if (line.startsWith('checkpoint_fencing_') && !line.includes('_bucket')) {
      console.log(`  ${line}`);
    }
  }
  if (values.serve === true) {
    say(`still serving ${endpoint.url}; Ctrl-C to stop`);
    await new Promise((resolve) => process.once('SIGINT', resolve));
  }
} catch (error) {
  say(`FAILED: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await ownServer?.stop();
  await endpoint.stop();
}
