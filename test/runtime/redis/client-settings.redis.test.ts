import { readFileSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { Redis as Redis6 } from 'ioredis6';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CheckpointWriteCondition,
  RedisCheckpointStorage,
  type RedisCheckpointClient,
} from '../../../runtime/index.js';
import { useSharedRedis } from '../../support/redis/index.js';

// Issue 11, defect 4: which ioredis settings end every call. A TCP proxy between the client and a real redis-server
// drops the reply to one EVALSHA, either closing the connection right after (a crash or a reset) or keeping it open
// and silent (a half-open connection, a stopped server). A call that never settles would hold a checkpoint write,
// and the lease calls queued behind it, for good. The server itself is never touched, so this suite uses the shared
// one, on a database of its own.

const commandTimeoutMs = 500;
/** What a loaded machine may add on top of commandTimeout before the rejection arrives. */
const marginMs = 1_500;

type DropMode = 'close' | 'silent';

/** A loopback TCP proxy to redis-server that, once armed, swallows the next reply and then closes or goes silent. */
class ReplyDroppingProxy {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #armed: DropMode | undefined;
  /** How many replies were swallowed. */
  dropped = 0;

  private constructor(server: Server) {
    this.#server = server;
  }

  static async start(target: { readonly host: string; readonly port: number }): Promise<ReplyDroppingProxy> {
    const proxy = new ReplyDroppingProxy(createServer());
    proxy.#server.on('connection', (client: Socket) => {
      proxy.#relay(client, target);
    });
    await new Promise<void>((resolve) => proxy.#server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get port(): number {
    const address = this.#server.address();
    if (address === null || typeof address === 'string') {
      throw new Error('the proxy is not listening on a TCP port');
    }
    return address.port;
  }

  /** The next reply from the server, on any connection, is dropped; then that connection closes or goes silent. */
  dropNextReply(mode: DropMode): void {
    this.#armed = mode;
  }

  async stop(): Promise<void> {
    for (const socket of this.#sockets) {
      socket.destroy();
    }
    await new Promise<void>((resolve) => {
      this.#server.close(() => {
        resolve();
      });
    });
  }

  #relay(client: Socket, target: { readonly host: string; readonly port: number }): void {
    const upstream = connect(target.port, target.host);
    this.#sockets.add(client).add(upstream);
    let silent = false;
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => {
      const mode = this.#armed;
      if (mode !== undefined) {
        this.#armed = undefined;
        this.dropped += 1;
        if (mode === 'close') {
          client.destroy();
          upstream.destroy();
        } else {
          silent = true;
        }
        return;
      }
      if (!silent) {
        client.write(chunk);
      }
    });
    for (const [socket, other] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      socket.on('error', () => other.destroy());
      socket.on('close', () => {
        this.#sockets.delete(socket);
        other.destroy();
      });
    }
  }
}

const shared = useSharedRedis();
let proxy: ReplyDroppingProxy | undefined;
const clients: { disconnect(): void }[] = [];
let calls = 0;

beforeAll(async () => {
  proxy = await ReplyDroppingProxy.start(shared);
});

afterAll(async () => {
  for (const client of clients.splice(0)) {
    client.disconnect();
  }
  await proxy?.stop();
});

function running(): ReplyDroppingProxy {
  if (proxy === undefined) {
    throw new Error('The redis-server or the proxy of this suite did not start; see the beforeAll error.');
  }
  return proxy;
}

/** The settings under test; both ioredis 5 and 6 take them under these names. */
interface ClientSettings {
  readonly autoResendUnfulfilledCommands?: boolean;
  readonly commandTimeout?: number;
  readonly maxRetriesPerRequest?: number;
}

/** A client through the proxy on `port`, on the suite's database (its SELECT passes before a reply is dropped). */
type Connect = (port: number, settings: ClientSettings) => RedisCheckpointClient & { disconnect(): void };
const ioredisVersions: readonly (readonly [string, Connect])[] = [
  ['ioredis 5', (port, settings) => new Redis({ host: '127.0.0.1', port, db: shared.database, ...settings })],
  ['ioredis 6', (port, settings) => new Redis6({ host: '127.0.0.1', port, db: shared.database, ...settings })],
];

/** How a save through the proxy ends when its reply is dropped: its error and when, or still pending. */
async function saveWithDroppedReply(
  connectClient: Connect,
  settings: ClientSettings,
  mode: DropMode,
  waitMs: number,
): Promise<{ readonly settledAfterMs: number | undefined; readonly error: unknown }> {
  const relay = running();
  const client = connectClient(relay.port, settings);
  clients.push(client);
  const storage = new RedisCheckpointStorage(client);
  // Every call writes its own id: a dropped reply's script still ran.
  calls += 1;
  const id = `{t}orders-${calls}`;
  // Warm up: the storage asks INFO once, and the script gets loaded, before the reply to drop is armed.
  await storage.save(id, 'warm-up', CheckpointWriteCondition.notOlderThan(1));
  const droppedBefore = relay.dropped;
  relay.dropNextReply(mode);
  const started = performance.now();
  let outcome: { settledAfterMs: number | undefined; error: unknown } = { settledAfterMs: undefined, error: undefined };
  const settled = storage.save(id, 'next', CheckpointWriteCondition.notOlderThan(2)).then(
    () => {
      outcome = { settledAfterMs: performance.now() - started, error: undefined };
    },
    (error: unknown) => {
      outcome = { settledAfterMs: performance.now() - started, error };
    },
  );
  await Promise.race([settled, new Promise((resolve) => setTimeout(resolve, waitMs))]);
  expect(relay.dropped).toBe(droppedBefore + 1);
  client.disconnect();
  return outcome;
}

describe.each(ioredisVersions)('%s through a proxy that drops the reply to one EVALSHA', (_label, connectClient) => {
  it('autoResendUnfulfilledCommands: false alone leaves save pending for good once the connection closes', async () => {
    const outcome = await saveWithDroppedReply(
      connectClient,
      { autoResendUnfulfilledCommands: false },
      'close',
      commandTimeoutMs + marginMs,
    );
    expect(outcome.settledAfterMs).toBeUndefined();
  });

  it('autoResendUnfulfilledCommands: false with commandTimeout rejects within commandTimeout plus a margin', async () => {
    for (const mode of ['close', 'silent'] as const) {
      const outcome = await saveWithDroppedReply(
        connectClient,
        { autoResendUnfulfilledCommands: false, commandTimeout: commandTimeoutMs },
        mode,
        10_000,
      );
      expect(outcome.settledAfterMs, mode).toBeDefined();
      expect(outcome.settledAfterMs ?? Infinity, mode).toBeLessThan(commandTimeoutMs + marginMs);
      expect(String(outcome.error), mode).toMatch(/timed out/iu);
    }
  });

  it('maxRetriesPerRequest: 0 rejects at once when the connection closes, but only commandTimeout ends a silent one', async () => {
    const closed = await saveWithDroppedReply(connectClient, { maxRetriesPerRequest: 0 }, 'close', 10_000);
    expect(closed.settledAfterMs).toBeDefined();
    expect(closed.settledAfterMs ?? Infinity).toBeLessThan(marginMs);
    expect(closed.error).toBeInstanceOf(Error);

    const silentAlone = await saveWithDroppedReply(
      connectClient,
      { maxRetriesPerRequest: 0 },
      'silent',
      commandTimeoutMs + marginMs,
    );
    expect(silentAlone.settledAfterMs).toBeUndefined();

    const silentWithTimeout = await saveWithDroppedReply(
      connectClient,
      { maxRetriesPerRequest: 0, commandTimeout: commandTimeoutMs },
      'silent',
      10_000,
    );
    expect(silentWithTimeout.settledAfterMs ?? Infinity).toBeLessThan(commandTimeoutMs + marginMs);
  });
});

describe('the client settings the docs recommend', () => {
  // Each paragraph (or code block) that offers autoResendUnfulfilledCommands: false or maxRetriesPerRequest: 0 as a
  // setting must offer commandTimeout with it: the cases above show that neither ends every call on its own.
  const documents = ['README.md', 'runtime/README.md', 'doc/redis.md', 'doc/reliability.md', 'doc/leases.md'];
  for (const document of documents) {
    it(`${document} offers no setting that leaves a call pending without commandTimeout beside it`, () => {
      const text = readFileSync(join(import.meta.dirname, '../../..', document), 'utf8');
      const paragraphs = text.split(/\n\s*\n/u);
      const offending = paragraphs.filter(
        (paragraph) =>
          /autoResendUnfulfilledCommands: false|maxRetriesPerRequest: 0/u.test(paragraph) &&
          !paragraph.includes('commandTimeout'),
      );
      expect(offending).toEqual([]);
    });
  }
});
