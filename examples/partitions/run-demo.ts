// The partitioned-consumers demo: three node processes share one subscription split into 8 partitions over one real
// Redis and a shared log. It prints who owns what as it changes; stops one node (SIGSTOP) beyond its lease and
// continues it, and shows its late write refused; kills another (SIGKILL) and shows its partitions moving; and prints
// events per second for each process. Usage:
//   npm run example:partitions [-- --redis host:port]
// Without --redis it starts its own redis-server on a free loopback port and stops it at the end. Exits 1 unless the
// late write is refused, the killed node's partitions move, and every partition's checkpoint reaches the log's end.
import { parseArgs } from 'node:util';
import { startRedisServer } from '../../test/support/redis/index.js';
import { runPartitionsDemo } from './partitions-demo.js';

const say = (line: string): void => {
  console.log(`[demo] ${line}`);
};
const { values } = parseArgs({ options: { redis: { type: 'string' } } });
const ownServer = values.redis === undefined ? await startRedisServer() : undefined;
try {
  await runPartitionsDemo({
    redis: values.redis ?? `127.0.0.1:${ownServer?.port}`,
    say,
    echo: (line) => {
      console.log(line);
    },
  });
} catch (error) {
  say(`FAILED: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await ownServer?.stop();
}
