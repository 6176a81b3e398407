import { lookup, type LookupAddress } from 'node:dns';
import type * as IORedis from 'ioredis';
import type { RedisAddress } from '../connection-url.js';
import { withDeadline } from '../deadline.js';
import { OperatorError } from '../operator-error.js';
import { redisFailure } from './redis-failure.js';

/** The ioredis module as the user's project has it (5 or 6). */
export type IORedisModule = typeof IORedis;

/** A connection to a Redis server or Cluster, opened only to the addresses {@link connectRedis} allows. */
export interface RedisConnection {
  readonly client: IORedis.Redis | IORedis.Cluster;
  readonly isCluster: boolean;
  /** The server itself, or every master of the Cluster: where `SCAN` runs. */
  masters(): IORedis.Redis[];
  /** The one line to show for `error`, in terms of the connection (no answer, refused credentials, a refused node). */
  failure(error: unknown): OperatorError;
  close(): void;
}

/** How the operator commands connect. */
export interface RedisConnectOptions {
  readonly cluster: boolean;
  /** The longest wait for the connection and for each command's reply. */
  readonly timeoutMs: number;
}

/** Names the commands' connections in `CLIENT LIST`. */
const connectionName = 'checkpoint-fencing-operator';

/**
 * Connects to `address` and nowhere else (ADR 1002): no default host, nothing from the environment, no retries, no
 * offline queue. With `cluster`, the URL is the seed: the commands connect to it and to the nodes its `CLUSTER
 * SLOTS` lists, and refuse any other address (a `MOVED` or `ASK` redirection to a node the seed did not list, or a
 * node that shows up in a later slot refresh): ioredis's `natMap` sends such an address to the seed instead. Checks that a server given without `--cluster` is no Cluster node
 * (its keys would be spread over nodes this connection never sees) and one given with it is one.
 * @throws OperatorError with one line saying what failed: a refused connection, no answer within the timeout,
 * refused credentials, the wrong `--cluster` setting.
 */
export async function connectRedis(
  ioredis: IORedisModule,
  address: RedisAddress,
  options: RedisConnectOptions,
): Promise<RedisConnection> {
  const server = await connectedServer(ioredis, address, options.timeoutMs);
  const fail = (error: unknown): OperatorError => redisFailure(error, address.display, options.timeoutMs);
  let allowed: Set<string>;
  try {
    const clusterEnabled = /^cluster_enabled:1\r?$/mu.test(await server.info('cluster'));
    if (clusterEnabled !== options.cluster) {
      throw new OperatorError(
        clusterEnabled
          ? `${address.display} is a Redis Cluster node, whose other masters hold keys it cannot show; add --cluster`
          : `${address.display} is not a Redis Cluster node (cluster_enabled:0); drop --cluster`,
      );
    }
    if (!options.cluster) {
      return standalone(server, fail);
    }
    allowed = announcedNodes(await server.cluster('SLOTS'), address);
  } catch (error) {
    server.disconnect();
    throw fail(error);
  }
  server.disconnect();
  return clusterConnection(ioredis, address, options.timeoutMs, allowed, fail);
}

function clientOptions(address: RedisAddress, timeoutMs: number): IORedis.RedisOptions {
  return {
    ...(address.username === undefined ? {} : { username: address.username }),
    ...(address.password === undefined ? {} : { password: address.password }),
    ...(address.tls ? { tls: { servername: address.host } } : {}),
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    // inspect sends several commands for every subscription at once: one socket write a tick instead of one a command
    // (one a command took a third of the time of an inspect over 100,000 subscriptions).
    enableAutoPipelining: true,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    connectionName,
    // ioredis waits this long for a closed socket's "close" before destroying it, 2 s by default; after a failed
    // connect the socket is often closed already, and the command would sit out the whole wait before exiting.
    disconnectTimeout: 100,
  };
}

/** A connection to `address` alone (a server, or a Sentinel), no retries; it answers commands when this resolves. */
export async function connectedServer(
  ioredis: IORedisModule,
  address: RedisAddress,
  timeoutMs: number,
): Promise<IORedis.Redis> {
  const client = new ioredis.Redis({
    ...clientOptions(address, timeoutMs),
    host: address.host,
    port: address.port,
    db: address.db,
    lazyConnect: true,
    retryStrategy: () => null,
  });
  // ioredis rejects connect() with "Connection is closed."; the reason comes as an error event.
  let reason: unknown;
  client.on('error', (error: unknown) => {
    reason ??= error;
  });
  try {
    await withDeadline(client.connect(), timeoutMs, () => new Error('timed out'));
    return client;
  } catch (error) {
    client.disconnect();
    throw redisFailure(reason ?? error, address.display, timeoutMs);
  }
}

function standalone(server: IORedis.Redis, fail: (error: unknown) => OperatorError): RedisConnection {
  return {
    client: server,
    isCluster: false,
    masters: () => [server],
    failure: fail,
    close: () => {
      server.disconnect();
    },
  };
}

/** `host:port` of every node in a `CLUSTER SLOTS` reply; an empty host means the one the seed was reached at. */
function announcedNodes(slots: unknown, seed: RedisAddress): Set<string> {
  const nodes = new Set([nodeKey(seed.host, seed.port)]);
  for (const range of Array.isArray(slots) ? (slots as unknown[]) : []) {
    for (const node of Array.isArray(range) ? range.slice(2) : []) {
      if (Array.isArray(node) && typeof node[0] === 'string' && typeof node[1] === 'number') {
        nodes.add(nodeKey(node[0] === '' ? seed.host : node[0], node[1]));
      }
    }
  }
  return nodes;
}

function nodeKey(host: string, port: number): string {
  return `${host}:${port}`;
}

async function clusterConnection(
  ioredis: IORedisModule,
  address: RedisAddress,
  timeoutMs: number,
  allowed: Set<string>,
  fail: (error: unknown) => OperatorError,
): Promise<RedisConnection> {
  let refused: string | undefined;
  let reason: unknown;
  const cluster = new ioredis.Cluster([{ host: address.host, port: address.port }], {
    redisOptions: clientOptions(address, timeoutMs),
    clusterRetryStrategy: () => null,
    // No enableAutoPipelining here: a Cluster's auto-pipeline hands a MOVED to an unannounced node back as a bare
    // error, where the natMap guard below explains the refusal (operator-cli.process.test.ts).
    slotsRefreshTimeout: timeoutMs,
    enableOfflineQueue: true,
    lazyConnect: true,
    scaleReads: 'master',
    // Every address ioredis would connect to passes through here: the nodes of each CLUSTER SLOTS reply and every
    // MOVED or ASK redirection. One the seed did not announce is sent to the seed instead, which redirects again
    // until ioredis gives up: no connection is ever opened to it, and the failure names it.
    natMap: (key: string) => {
      if (allowed.has(key)) {
        return null;
      }
      refused ??= key;
      return { host: address.host, port: address.port };
    },
    // ioredis connects to the seed by the address its name resolves to: that address is the seed too.
    dnsLookup: (hostname, callback) => {
      lookup(hostname, (error: NodeJS.ErrnoException | null, resolved: string | LookupAddress[], family?: number) => {
        if (error === null && hostname === address.host && typeof resolved === 'string') {
          allowed.add(nodeKey(resolved, address.port));
        }
        callback(error, typeof resolved === 'string' ? resolved : (resolved[0]?.address ?? ''), family ?? 4);
      });
    },
  });
  cluster.on('error', (error: unknown) => {
    reason ??= error;
  });
  cluster.on('node error', (error: unknown) => {
    reason ??= error;
  });
  const failure = (error: unknown): OperatorError =>
    refused === undefined
      ? fail(error)
      : new OperatorError(
          `refused to connect to ${refused}: the Cluster at ${address.display} sent the command to a node its CLUSTER SLOTS ` +
            `did not list (${[...allowed].join(', ')}); the commands connect only to the seed given and the nodes it announces. ` +
            'Run again once the Cluster is stable, or give the URL of a node that lists that one',
        );
  try {
    await withDeadline(cluster.connect(), timeoutMs, () => new Error('timed out'));
  } catch (error) {
    cluster.disconnect();
    throw failure(reason ?? error);
  }
  return {
    client: cluster,
    isCluster: true,
    masters: () => cluster.nodes('master'),
    failure,
    close: () => {
      cluster.disconnect();
    },
  };
}
