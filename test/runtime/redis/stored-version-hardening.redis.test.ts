import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { startRedisServer, type RedisServerProcess } from '../../support/redis/index.js';
import { describeStoredVersionHardening } from './stored-version-hardening.js';

let server: RedisServerProcess | undefined;
let client: Redis | undefined;

beforeAll(async () => {
  server = await startRedisServer();
  client = new Redis({ host: server.host, port: server.port });
});

afterAll(async () => {
  client?.disconnect();
  await server?.stop();
});

describeStoredVersionHardening('a real redis-server', async () => {
  if (client === undefined) {
    throw new Error('The redis-server of this suite did not start; see the beforeAll error.');
  }
  await client.flushall();
  return client;
});
