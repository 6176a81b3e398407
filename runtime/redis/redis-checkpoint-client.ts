import type { SlotMapClient } from './cluster-redirection.js';
import type { ReplicatedClient } from './promotable-replicas.js';

/** The commands a `RedisScriptRunner` sends: an ioredis `Redis` or `Cluster`, version 5 or 6. */
export interface RedisScriptClient {
  evalsha(sha1: string, numkeys: number, ...keysAndArgs: string[]): Promise<unknown>;
  eval(script: string, numkeys: number, ...keysAndArgs: string[]): Promise<unknown>;
  info(section: string): Promise<string>;
}

/**
 * The client a `RedisCheckpointStorage` works over: an ioredis `Redis` or `Cluster`, version 5 or 6, which the caller
 * owns, connects and closes. Typed by the few commands the storage sends, so the package needs no ioredis types.
 */
export interface RedisCheckpointClient extends RedisScriptClient, ReplicatedClient, SlotMapClient {
  get(key: string): Promise<string | null>;
  set(key: string, value: string): Promise<unknown>;
  del(...keys: string[]): Promise<number>;
  /** ioredis's pipeline; when there is one, on a client that is not a Cluster, commands of one tick share one. */
  pipeline?(): RedisCheckpointPipeline;
  /** `true` on an ioredis `Cluster`. */
  readonly isCluster?: boolean;
  /** ioredis's options: with `enableAutoPipelining` every command the storage sends goes out in a pipeline. */
  readonly options?: { readonly enableAutoPipelining?: boolean | undefined };
}

/**
 * The part of an ioredis pipeline the storage queues its commands on; `INFO replication` and `WAIT` follow the writes
 * that wait for replicas, and a `GET` of a written key routes a further `WAIT` to the master that ran the write.
 */
export interface RedisCheckpointPipeline {
  get(key: string): unknown;
  set(key: string, value: string): unknown;
  del(...keys: string[]): unknown;
  evalsha(sha1: string, numkeys: number, ...keysAndArgs: string[]): unknown;
  eval(script: string, numkeys: number, ...keysAndArgs: string[]): unknown;
  wait(numreplicas: number, timeoutMs: number): unknown;
  info(section: string): unknown;
  exec(): Promise<[Error | null, unknown][] | null>;
}
