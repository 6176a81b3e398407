import { afterAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { Redis } from 'ioredis';
import {
  startRedisCluster,
  startRedisServer,
  type RedisClusterProcess,
  type RedisServerProcess,
} from '../support/redis/index.js';

describe('startRedisServer', () => {
  const started: RedisServerProcess[] = [];
  afterAll(async () => {
    await Promise.all(started.map((server) => server.stop()));
  });

  it('starts a server that answers, survives kill + restart with appendonly data, and removes its dir on stop', async () => {
    const server = await startRedisServer({ args: ['--appendonly', 'yes', '--appendfsync', 'always'] });
    started.push(server);
    expect(server.host).toBe('127.0.0.1');
    const client = new Redis({ host: server.host, port: server.port, lazyConnect: true, maxRetriesPerRequest: null });
    try {
      await client.set('kept', 'yes');
      server.kill();
      await server.restart();
      expect(await client.get('kept')).toBe('yes');
    } finally {
      client.disconnect();
    }
    await server.stop();
    expect(existsSync(server.dataDir)).toBe(false);
  });

  it('fails with the install command, never skips, when redis-server is not on PATH', async () => {
    const path = process.env['PATH'];
    process.env['PATH'] = '/nonexistent';
    try {
      await expect(startRedisServer()).rejects.toThrow(/apt-get install redis-server/);
    } finally {
      process.env['PATH'] = path;
    }
  });

  it('pauses and resumes the process', async () => {
    const server = await startRedisServer();
    started.push(server);
    const client = new Redis({ host: server.host, port: server.port, commandTimeout: 200, maxRetriesPerRequest: 0 });
    try {
      await client.ping();
      server.pause();
      await expect(client.ping()).rejects.toThrow(/timed out/i);
      server.resume();
      await expect(client.set('after', 'resume')).resolves.toBe('OK');
    } finally {
      client.disconnect();
    }
  });
});

describe('startRedisCluster', () => {
  let cluster: RedisClusterProcess | undefined;
  afterAll(async () => {
    await cluster?.stop();
  });

  it('starts three masters that all report cluster_state:ok and together own every slot', async () => {
    cluster = await startRedisCluster();
    expect(cluster.nodes).toHaveLength(3);
    for (const node of cluster.nodes) {
      const client = new Redis({ host: node.host, port: node.port });
      try {
        expect(String(await client.call('CLUSTER', 'INFO'))).toMatch(
          /cluster_state:ok[\s\S]*cluster_slots_assigned:16384[\s\S]*cluster_known_nodes:3/,
        );
      } finally {
        client.disconnect();
      }
    }
  });
});
