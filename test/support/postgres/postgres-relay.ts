import { connect, createServer, type Server, type Socket } from 'node:net';
import { listenOnFreeLoopbackPort, loopbackHost } from '../free-loopback-port.js';

/**
 * A TCP relay on a free loopback port in front of a PostgreSQL server: an address that outlives the server behind
 * it, as a failover manager's virtual IP or DNS name does, and a network link the test controls. Bytes are forwarded
 * both ways with backpressure, and a close on one side closes the other.
 * - {@link hold}: every byte through it is dropped, both ways, while every connection stays open, as in a partition
 *   before any timeout fires: a standby streaming through it neither gets WAL nor reports flushing it;
 * - {@link aimAt}: later connections go to another server, and the open ones are closed, as a failover's clients see.
 */
export class PostgresRelay {
  readonly host = loopbackHost;
  readonly #server: Server;
  readonly #links = new Set<readonly [Socket, Socket]>();
  #targetPort: number;
  #held = false;

  private constructor(
    server: Server,
    readonly port: number,
    targetPort: number,
  ) {
    this.#server = server;
    this.#targetPort = targetPort;
    server.on('connection', (client) => {
      this.#open(client);
    });
  }

  /** Listens on a free loopback port, forwarding to the server on `targetPort`. */
  static async open(targetPort: number): Promise<PostgresRelay> {
    // Without Nagle's algorithm, as PostgreSQL sets its own sockets: delayed small packets held replies 40 ms.
    const server = createServer({ pauseOnConnect: true, noDelay: true });
    return new PostgresRelay(server, await listenOnFreeLoopbackPort(server), targetPort);
  }

  /** Whether bytes through the relay are dropped. */
  get held(): boolean {
    return this.#held;
  }

  /** From now on every byte through the relay is dropped, both ways; nothing is closed. */
  hold(): void {
    this.#held = true;
  }

  /** Ends {@link hold}: the connections that lost bytes are closed (their streams cannot go on), new ones pass. */
  release(): void {
    this.#held = false;
    this.#closeAll();
  }

  /** Later connections go to the server on `port`; the open ones are closed, held bytes with them. */
  aimAt(port: number): void {
    this.#targetPort = port;
    this.#held = false;
    this.#closeAll();
  }

  /** Stops listening and closes every connection. */
  async close(): Promise<void> {
    this.#closeAll();
    await new Promise<void>((resolve) => {
      this.#server.close(() => {
        resolve();
      });
    });
  }

  #open(client: Socket): void {
    const server = connect({ host: loopbackHost, port: this.#targetPort, noDelay: true });
    const link = [client, server] as const;
    this.#links.add(link);
    for (const [from, to] of [link, [server, client] as const]) {
      from.on('data', (chunk: Buffer) => {
        if (!this.#held && !to.destroyed && !to.write(chunk)) {
          from.pause();
          to.once('drain', () => from.resume());
        }
      });
      // A partition carries no FIN either: a held link stays open until released.
      const end = (): void => {
        if (!this.#held) {
          this.#close(link);
        }
      };
      from.on('error', end);
      from.on('close', end);
    }
    server.once('connect', () => client.resume());
  }

  #closeAll(): void {
    for (const link of this.#links) {
      this.#close(link);
    }
  }

  #close(link: readonly [Socket, Socket]): void {
    this.#links.delete(link);
    link[0].destroy();
    link[1].destroy();
  }
}
