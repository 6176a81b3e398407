import { createServer, connect, type Server, type Socket } from 'node:net';
import { listenOnFreeLoopbackPort, loopbackHost } from '../free-loopback-port.js';

/** One client connection through a {@link RedisFrontDoor} and the connection it opened to the server. */
interface Passage {
  readonly client: Socket;
  readonly server: Socket;
  /** Set once the client has sent `REPLCONF`, `PSYNC` or `SYNC`: it is a replica's link to its master. */
  replication: boolean;
  /** Who connected, once its first bytes said ({@link peerIn}); `undefined` until then, or when they never do. */
  peer: string | undefined;
  /** The first bytes the client sent, so that a name or command split across chunks is still read. */
  head: string;
  /** Opened while a cut was in force: closed rather than kept silent once it turns out to be cut. */
  readonly openedDuringCut: boolean;
}

const replicationCommand = /REPLCONF|PSYNC|\bSYNC\b/iu;
/** How much of a connection's first bytes is searched for who opened it. */
const headLength = 512;

/**
 * Who opened a connection, from its first bytes (`latin1`), or `undefined` while they do not say:
 * - `sentinel:<8 hex>` for a Sentinel, which names each of its links `sentinel-<first 8 of its ID>-cmd` (or `-pubsub`);
 * - `node:<port>` for a redis-server: a replica's `REPLCONF listening-port`, and the sender port of a Cluster bus
 *   message (both the port it announces, its door's);
 * - `client:<name>` for a client that names its connection (ioredis's `connectionName`).
 */
export function peerIn(head: string): string | undefined {
  if (head.startsWith('RCmb') && head.length >= 12) {
    // clusterMsg: "RCmb", totlen (4), version (2), then the sender's announced port, big-endian.
    return `node:${(head.charCodeAt(10) << 8) | head.charCodeAt(11)}`;
  }
  const name = /setname\r\n\$\d+\r\n([^\r]*)\r\n/iu.exec(head)?.[1];
  const sentinel = name === undefined ? undefined : /^sentinel-([0-9a-f]{8})-/u.exec(name)?.[1];
  if (sentinel !== undefined) {
    return `sentinel:${sentinel}`;
  }
  if (name !== undefined) {
    return `client:${name}`;
  }
  const port = /listening-port\r\n\$\d+\r\n(\d+)\r\n/iu.exec(head)?.[1];
  return port === undefined ? undefined : `node:${port}`;
}

/**
 * A TCP proxy on a free loopback port in front of one redis-server. It forwards bytes both ways, with backpressure,
 * and passes every close on, so a killed or stopped server looks the same through it as without it. What it adds is a
 * network partition: {@link cutReplication} silently drops every byte on the replication links through it (a
 * replica's connection to this server while it is a master), and {@link isolate} every byte on the connections of the
 * peers it names ({@link peerIn}), in both directions, while every connection stays open, as in a real partition
 * before any timeout fires. The master then still counts a cut replica as connected, but the replica neither gets its
 * writes nor acknowledges them. The Sentinel test support moves a replica's link onto it to cut it, or puts every
 * server and Sentinel behind one for partitions; the Cluster test support puts every node and its bus behind doors.
 */
export class RedisFrontDoor {
  readonly host = loopbackHost;
  readonly #server: Server;
  readonly #passages = new Set<Passage>();
  /** Which passages drop their bytes; none while `undefined`. */
  #cut: ((passage: Passage) => boolean) | undefined;
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

  /** Whether a cut is in force through this door. */
  get replicationCut(): boolean {
    return this.#cut !== undefined;
  }

  /** From now on every byte of a replication link through this door is dropped, both ways; nothing is closed. */
  cutReplication(): void {
    this.#cut = (passage) => passage.replication;
  }

  /**
   * From now on every byte of a connection whose peer `isCut` names ({@link peerIn}; `undefined` for one whose first
   * bytes did not say who opened it) is dropped, both ways, and nothing is closed; a connection such a peer opens
   * meanwhile is closed as soon as it says who it is, as a connect across a partition fails. A named client's
   * connection is closed at once instead: a client learns of a partition from its own timeouts, and then asks its
   * Sentinels again, which closing it stands for. Replaces any cut before.
   */
  isolate(isCut: (peer: string | undefined) => boolean): void {
    this.#cut = (passage) => isCut(passage.peer);
    for (const passage of this.#passages) {
      if (passage.peer?.startsWith('client:') === true && isCut(passage.peer)) {
        this.#close(passage);
      }
    }
  }

  /** Closes every connection through the door whose peer ({@link peerIn}) `matches`, on both sides. */
  closeClients(matches: (peer: string) => boolean): void {
    for (const passage of this.#passages) {
      if (passage.peer !== undefined && matches(passage.peer)) {
        this.#close(passage);
      }
    }
  }

  /**
   * A cut replication link's server side times out: the server sees its replica go (as `repl-timeout` would make it
   * drop it), while the replica's side stays open and silent.
   */
  closeCutReplicationOnServerSide(): void {
    for (const passage of this.#passages) {
      if (passage.replication && this.#cut?.(passage) === true) {
        passage.server.destroy();
      }
    }
  }

  /**
   * Ends the partition: the connections that were cut are closed on both sides (their streams lost bytes, so they
   * cannot go on), and their clients connect again, as after a partition healed by a timeout.
   */
  heal(): void {
    const cut = this.#cut;
    this.#cut = undefined;
    for (const passage of this.#passages) {
      if (cut?.(passage) === true) {
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
    const passage: Passage = {
      client,
      server,
      replication: false,
      peer: undefined,
      head: '',
      openedDuringCut: this.#cut !== undefined,
    };
    this.#passages.add(passage);
    client.on('data', (chunk: Buffer) => {
      // A replica says what it is within its first commands (PING, AUTH, REPLCONF), a Sentinel or client in its first.
      if (passage.head.length < headLength) {
        passage.head += chunk.toString('latin1', 0, headLength - passage.head.length);
        passage.peer ??= peerIn(passage.head);
        passage.replication ||= replicationCommand.test(passage.head);
        if (passage.openedDuringCut && this.#cut?.(passage) === true) {
          this.#close(passage);
          return;
        }
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

  /** Writes `chunk` from `from` to `to`, pausing `from` while `to` is full; drops it on a cut connection. */
  #forward(passage: Passage, chunk: Buffer, from: Socket, to: Socket): void {
    if (this.#cut?.(passage) === true) {
      return;
    }
    if (!to.destroyed && !to.write(chunk)) {
      from.pause();
      to.once('drain', () => {
        from.resume();
      });
    }
  }

  /** A close on one side is passed to the other, except across a cut connection: a partition carries no FIN either. */
  #endUnlessCut(passage: Passage): void {
    if (this.#cut?.(passage) === true) {
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
