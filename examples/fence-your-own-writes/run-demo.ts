// The "fence your own writes" demo: a handler stamps its writes to its own resource (a projection in a fenced
// key-value store) with the fencing token of its delivery, and a node that froze and lost its lease has its late
// write refused. Usage:
//   npm run example:fence-your-own-writes [-- --redis host:port]
// Without --redis it starts its own redis-server on a free loopback port and stops it at the end. Exits 1 unless the
// zombie's write is refused and the balances add up.
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { startRedisServer } from '../../test/support/redis/index.js';
import { runFenceYourOwnWritesDemo } from './zombie-demo.js';

const say = (line: string): void => {
  console.log(`[fence demo] ${line}`);
};
const { values } = parseArgs({ options: { redis: { type: 'string' } } });
const ownServer = values.redis === undefined ? await startRedisServer() : undefined;
const [host = '127.0.0.1', port = '6379'] = (values.redis ?? `127.0.0.1:${ownServer?.port}`).split(':');
try {
  say(`redis at ${host}:${port}${ownServer === undefined ? '' : ' (started by the demo)'}`);
  const outcome = await runFenceYourOwnWritesDemo(() => new Redis({ host, port: Number(port) }), say);
  say(
    `A tried to write the balances up to event ${outcome.staleState.position}: ${JSON.stringify(outcome.staleState.balances)}`,
  );
  say(
    `kept instead, written by B: balances up to event ${outcome.balances.position}: ${JSON.stringify(outcome.balances.balances)}`,
  );
  say(
    `checkpoint ${outcome.checkpoint ?? 'none'}; A's token ${outcome.zombieToken} was refused after B wrote with ${outcome.newHolderToken}`,
  );
} catch (error) {
  say(`FAILED: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await ownServer?.stop();
}
