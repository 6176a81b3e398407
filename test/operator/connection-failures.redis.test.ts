import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer, type RedisServerProcess } from '../support/redis/index.js';
import { builtBin, runCli } from './support/operator-cli.js';
import { itPrintsNoSecret } from './support/secret-urls.js';

// A server of its own, since it gets a password (CONFIG SET requirepass): every command refuses bad credentials in one
// line, exit 2, and prints no password, neither the wrong one nor the right one.

const password = 'correct-horse-battery';
let server: RedisServerProcess;

beforeAll(async () => {
  builtBin();
  server = await startRedisServer();
  const admin = new Redis({ host: server.host, port: server.port });
  await admin.config('SET', 'requirepass', password);
  admin.disconnect();
}, 180_000);

afterAll(async () => {
  await server.stop();
});

const at = (credentials: string): string => `redis://${credentials}127.0.0.1:${server.port}/0`;

describe('credentials on a real redis-server', { timeout: 60_000 }, () => {
  it.each([
    ['inspect', ['inspect'], ':wrong-secret@', ':***@', 'WRONGPASS'],
    ['inspect, as an ACL user that does not exist', ['inspect'], 'alice:wrong-secret@', 'alice:***@', 'WRONGPASS'],
    ['repair', ['repair', 'orders', '--raise-token'], ':wrong-secret@', ':***@', 'WRONGPASS'],
    ['reset', ['reset', 'orders', '--yes'], ':wrong-secret@', ':***@', 'WRONGPASS'],
    ['inspect with no password', ['inspect'], '', '', 'NOAUTH'],
  ])('%s: a wrong password gives one clear line and exit 2', async (_, args, credentials, shown, reply) => {
    const run = await runCli([...args, '--redis', at(credentials)]);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      `checkpoint-fencing ${args[0] ?? ''}: ${at(shown)} refused the credentials (${reply}); check the user name and password ` +
        'in the URL (redis://user:password@host:port, or redis://:password@host:port without ACL users).\n',
    );
    expect(run.stderr).not.toContain('wrong-secret');
  });

  it('with the right password it reads, and prints the URL without it', async () => {
    const run = await runCli(['inspect', '--redis', at(`:${password}@`)]);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(
      new RegExp(
        `^0 subscriptions, all healthy; 0 keys scanned \\(redis://:\\*\\*\\*@127\\.0\\.0\\.1:${server.port}/0, \\d+\\.\\d s\\)\n$`,
        'u',
      ),
    );
    expect(run.stdout + run.stderr).not.toContain(password);
  });

  it('refuses --cluster on a server that is not a Cluster node, without printing the password', async () => {
    const run = await runCli(['inspect', '--cluster', '--redis', at(`:${password}@`)]);
    expect(run.status).toBe(2);
    expect(run.stderr).toBe(
      `checkpoint-fencing inspect: ${at(':***@')} is not a Redis Cluster node (cluster_enabled:0); drop --cluster.\n`,
    );
  });
});

describe('no secret is printed, whatever the command, the failure and where the URL holds it', () => {
  itPrintsNoSecret('--redis', '/x', () => ({ scheme: 'redis', host: `127.0.0.1:${server.port}`, path: '/0' }));
});
