import { Redis } from 'ioredis';

/** Where a server is, for the admin helpers: a started server or any loopback address. */
export interface RedisAddress {
  readonly host: string;
  readonly port: number;
}

/**
 * Runs `body` on a connection of its own to `address` and closes it afterwards. It fails fast rather than retrying
 * (no reconnect, no retry, a 2 s command timeout): the harness asks about servers it may have just killed or paused.
 */
export async function withAdminConnection<T>(address: RedisAddress, body: (client: Redis) => Promise<T>): Promise<T> {
  const client = new Redis({
    host: address.host,
    port: address.port,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    commandTimeout: 2_000,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await body(client);
  } finally {
    client.disconnect();
  }
}
