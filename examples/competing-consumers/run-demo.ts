// The competing-consumers demo: two consumer processes over one real Redis. The lease holder stops (SIGSTOP) in the
// middle of handling an event, the other process takes the lease over, and when the stopped one is continued its
// late checkpoint write is refused by the fence. Usage:
//   npm run example:competing-consumers [-- --redis host:port]
// Without --redis it starts its own redis-server on a free loopback port and stops it at the end.
import { spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';
import { parseArgs } from 'node:util';
import { runCompetingConsumersDemo } from './competing-consumers-demo.js';

const { values } = parseArgs({ options: { redis: { type: 'string' } } });
const ownServer = values.redis === undefined ? await startRedisServer() : undefined;
try {
  if (ownServer !== undefined) {
    console.log(`[demo] started redis-server on 127.0.0.1:${ownServer.port}`);
  }
  await runCompetingConsumersDemo({
    redis: values.redis ?? `127.0.0.1:${ownServer?.port}`,
    say: (line) => {
      console.log(`[demo] ${line}`);
    },
    echo: (line) => {
      console.log(line);
    },
  });
} catch (error) {
  console.log(`[demo] FAILED: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  ownServer?.stop();
}

async function startRedisServer(): Promise<{ readonly port: number; stop(): void }> {
  const port = await freePort();
  const server = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  const failed = new Promise<never>((_, reject) => {
    server.once('error', (error) => {
      reject(
        new Error(
          `could not start redis-server (${error.message}); install it (apt-get install redis-server) or pass --redis host:port`,
        ),
      );
    });
  });
  try {
    await Promise.race([answersPing(port), failed]);
  } catch (error) {
    server.kill('SIGKILL');
    throw error;
  }
  return { port, stop: () => server.kill('SIGTERM') };
}

/** Resolves once a redis-server on `port` answers PING; rejects after 10 s. */
async function answersPing(port: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const answered = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port });
      socket.once('error', () => {
        resolve(false);
      });
      socket.once('connect', () => socket.write('PING\r\n'));
      socket.once('data', (reply) => {
        socket.destroy();
        resolve(reply.toString().startsWith('+PONG'));
      });
    });
    if (answered) {
      return;
    }
    if (Date.now() > deadline) {
      throw new Error(`redis-server on port ${port} did not answer PING within 10 s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const bound = probe.address();
      probe.close(() => {
        if (bound !== null && typeof bound === 'object') {
          resolve(bound.port);
        } else {
          reject(new Error('the probe socket has no port'));
        }
      });
    });
  });
}
