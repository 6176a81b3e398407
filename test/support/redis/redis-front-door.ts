import { createServer, connect, type Server, type Socket } from 'node:net';
import { listenOnFreeLoopbackPort, loopbackHost } from '../free-loopback-port.js';

/** One client connection through a {@link RedisFrontDoor} and the connection it opened to the server. */
interface Passage {
  readonly client: Socket;
  readonly server: Socket;
  /** Set once the client has sent `REPLCONF`, `PSYNC` or `SYNC`: it is a replica's link to its master. */
  replication: boolean;
  /** The last bytes the client sent, so a command name split across two chunks is still recognised. */
  tail: string;
}

const replicationCommand = /REPLCONF|PSYNC|\bSYNC\b/iu;

/**
 * A TCP proxy on a free loopback port in front of one redis-server. It forwards bytes both ways, with backpressure,
 * and passes every close on, so a killed or stopped server looks the same through it as without it. What it adds is a
 * network partition of one kind: {@link cutReplication} silently drops every byte on the replication links through it
 * (a replica's connection to this server while it is a master), in both directions, while every connection stays
 * open. The master then still counts its replica as connected, but the replica neither gets its writes nor
 * acknowledges them, as in a real partition before any timeout fires. The Sentinel test support moves a replica's
 * link onto it to cut it; nothing else goes through it, so a busy test process never delays a Sentinel's pings.
 */
export class RedisFrontDoor {
  readonly host = loopbackHost;
  readonly #server: Server;
  readonly #passages = new Set<Passage>();
  #cut = false;
  #targetPort: number | undefined;

  private constructor(
    server: Server,
    readonly port: number,
  ) {
    this.#server = server;
    server.on('connection', (client) => {
      this.#open(client);
    });
  }

  /** Listens on a free loopback port; connections are refused (closed) until {@link aimAt} names the server. */
  static async open(): Promise<RedisFrontDoor> {
    const server = createServer({ pauseOnConnect: true });
    return new RedisFrontDoor(server, await listenOnFreeLoopbackPort(server));
  }

  /** Forwards connections made from now on to the redis-server on `port`. */
  aimAt(port: number): void {
    this.#targetPort = port;
  }

  /** Whether replication through this door is cut. */
  get replicationCut(): boolean {
    return this.#cut;
  }

  /** From now on every byte of a replication link through this door is dropped, both ways; nothing is closed. */
  cutReplication(): void {
    this.#cut = true;
  }

  /**
   * Ends the partition: the replication links that were cut are closed on both sides (their streams lost bytes, so
   * they cannot go on), and the replica connects again and resynchronises, as after a partition healed by a timeout.
   */
  healReplication(): void {
    this.#cut = false;
    for (const passage of this.#passages) {
      if (passage.replication) {
        this.#close(passage);
      }
    }
  }

  /** Stops listening and closes every connection through the door. */
  async close(): Promise<void> {
    for (const passage of this.#passages) {
      this.#close(passage);
    }
    await new Promise<void>((resolve) => {
      this.#server.close(() => {
        resolve();
      });
    });
  }

  #open(client: Socket): void {
    if (this.#targetPort === undefined) {
      client.destroy();
      return;
    }
    const server = connect({ host: loopbackHost, port: this.#targetPort });
    const passage: Passage = { client, server, replication: false, tail: '' };
    this.#passages.add(passage);
    client.on('data', (chunk: Buffer) => {
      if (!passage.replication) {
        const text = passage.tail + chunk.toString('latin1');
        passage.replication = replicationCommand.test(text);
        passage.tail = text.slice(-16);
      }
      this.#forward(passage, chunk, client, server);
    });
    server.on('data', (chunk: Buffer) => {
      this.#forward(passage, chunk, server, client);
    });
    for (const socket of [client, server]) {
      socket.on('error', () => {
        this.#endUnlessCut(passage);
      });
      socket.on('close', () => {
        this.#endUnlessCut(passage);
      });
    }
    server.once('connect', () => {
      client.resume();
    });
  }

  /** Writes `chunk` from `from` to `to`, pausing `from` while `to` is full; drops it on a cut replication link. */
  #forward(passage: Passage, chunk: Buffer, from: Socket, to: Socket): void {
    if (this.#cut && passage.replication) {
      return;
    }
    if (!to.destroyed && !to.write(chunk)) {
      from.pause();
      to.once('drain', () => {
        from.resume();
      });
    }
  }

  /** A close on one side is passed to the other, except across a cut link: a partition carries no FIN either. */
  #endUnlessCut(passage: Passage): void {
    if (this.#cut && passage.replication) {
      return;
    }
    this.#close(passage);
  }

  #close(passage: Passage): void {
    this.#passages.delete(passage);
    passage.client.destroy();
    passage.server.destroy();
  }
}
