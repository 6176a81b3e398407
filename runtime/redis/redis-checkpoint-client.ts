import type { Cluster, Redis } from 'ioredis';

/** The ioredis clients a `RedisCheckpointStorage` works over; the caller owns, connects and closes it. */
export type RedisCheckpointClient = Redis | Cluster;

/** The few commands the storage sends; both ioredis `Redis` and `Cluster` (v5 and v6) provide them. */
export interface RedisCommands {
  get(key: string): Promise<string | null>;
  set(key: string, value: string): Promise<unknown>;
  del(...keys: string[]): Promise<number>;
  evalsha(sha1: string, numkeys: number, ...keysAndArgs: string[]): Promise<unknown>;
  eval(script: string, numkeys: number, ...keysAndArgs: string[]): Promise<unknown>;
  info(section: string): Promise<string>;
}

/** True for the server's refusal of a multi-key command whose keys hash to different Cluster slots. */
export function isCrossSlotError(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('CROSSSLOT');
}
