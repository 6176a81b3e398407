import type * as IORedis from 'ioredis';
import {
  clusterHashedPart,
  parseRedisLeaseKey,
  redisLeaseKeys,
  type CheckpointKeyLayout,
} from 'checkpoint-fencing/store-layout';
import type { ScanProgress } from '../scan-progress.js';

/** The key layouts a scan recognises: the storage's checkpoint and version keys, the strategy's lease keys. */
export interface RedisKeyspaceLayout {
  readonly checkpoints: CheckpointKeyLayout;
  readonly leaseKeyPrefix: string;
}

/**
 * A subscription's keys that can name it, in the order that decides which one lists it: the first of them the
 * subscription has. The token counter comes first because it is never deleted, the lease last because it comes and
 * goes with every hand-over.
 */
const keyRanks = ['token', 'version', 'checkpoint', 'lease'] as const;

/** Which of its subscription's keys a key is. */
export type SubscriptionKeyKind = (typeof keyRanks)[number];

/** A scanned key that names its subscription. */
export interface NamingKey {
  readonly id: string;
  readonly kind: SubscriptionKeyKind;
}

/** What one `SCAN` reply held that the layouts recognise. */
export interface RecognisedKeys {
  /** The keys that name their subscription, one an id: the first by rank. */
  readonly naming: readonly NamingKey[];
  /**
   * Version keys that hold only a hash of their id (and its tag): a tagged id's, or, under a `keyPrefix`, possibly
   * another prefix's.
   */
  readonly unnamedVersionKeys: readonly string[];
}

/** Keys a `SCAN` call asks for: large enough for few round trips, small enough to keep each reply short. */
const scanCount = 1_000;

/**
 * Recognises `keys` by the storage's and the strategy's own layout code. With no `keyPrefix`, any key may be a
 * checkpoint, so a checkpoint key names nothing here; subscriptions are found by their version and lease keys.
 */
export function recogniseKeys(keys: readonly string[], layout: RedisKeyspaceLayout): RecognisedKeys {
  const { checkpoints, leaseKeyPrefix } = layout;
  const naming = new Map<string, SubscriptionKeyKind>();
  const unnamedVersionKeys: string[] = [];
  const add = (id: string, kind: SubscriptionKeyKind): void => {
    const seen = naming.get(id);
    if (seen === undefined || keyRanks.indexOf(kind) < keyRanks.indexOf(seen)) {
      naming.set(id, kind);
    }
  };
  for (const key of keys) {
    const lease = parseRedisLeaseKey(leaseKeyPrefix, key);
    if (lease !== undefined) {
      add(lease.subscriptionId, lease.kind);
      continue;
    }
    if (checkpoints.versionKeyHashedPart(key) !== undefined) {
      const id = checkpoints.subscriptionIdOfVersionKey(key);
      if (id === undefined) {
        unnamedVersionKeys.push(key);
      } else {
        add(id, 'version');
      }
      continue;
    }
    const id = checkpoints.keyPrefix === '' ? undefined : checkpoints.subscriptionIdOf(key);
    if (id !== undefined) {
      add(id, 'checkpoint');
    }
  }
  return { naming: [...naming].map(([id, kind]) => ({ id, kind })), unnamedVersionKeys };
}

/**
 * The keys of `key.id` that rank above `key` and name the id when scanned: `key` lists the subscription only when
 * none of them exists, so that a scan lists each subscription once without remembering the ids it listed.
 */
export function keysRankedAbove(key: NamingKey, layout: RedisKeyspaceLayout): string[] {
  const { checkpoints, leaseKeyPrefix } = layout;
  const above = keyRanks.slice(0, keyRanks.indexOf(key.kind));
  const keys: string[] = [];
  for (const kind of above) {
    if (kind === 'token') {
      keys.push(redisLeaseKeys(leaseKeyPrefix, key.id).token);
    } else if (kind === 'version') {
      const { versionKey } = checkpoints.keysFor(key.id);
      if (checkpoints.subscriptionIdOfVersionKey(versionKey) === key.id) {
        keys.push(versionKey);
      }
    } else if (kind === 'checkpoint' && checkpoints.keyPrefix !== '') {
      keys.push(checkpoints.keysFor(key.id).checkpointKey);
    }
  }
  return keys;
}

/**
 * Version keys that hold only a hash of their id, until a subscription found by another key claims them: what is
 * left at the end belongs to no subscription the scan found. Holds only such keys (and claims that came before their
 * key was scanned), never the subscriptions.
 */
export class UnclaimedVersionKeys {
  /** By what Cluster hashes of the checkpoint key behind them: its tag, which a second scan looks for. */
  readonly #byHashedPart = new Map<string, Set<string>>();
  readonly #claimedBeforeScanned = new Set<string>();
  readonly #layout: CheckpointKeyLayout;

  constructor(layout: CheckpointKeyLayout) {
    this.#layout = layout;
  }

  /** Whether every version key scanned so far was claimed. */
  get isEmpty(): boolean {
    return this.#byHashedPart.size === 0;
  }

  /** Notes scanned version keys; one claimed before it was scanned is done with. */
  scanned(versionKeys: readonly string[]): void {
    for (const versionKey of versionKeys) {
      if (this.#claimedBeforeScanned.delete(versionKey)) {
        continue;
      }
      const hashedPart = this.#layout.versionKeyHashedPart(versionKey) ?? '';
      this.#byHashedPart.set(hashedPart, (this.#byHashedPart.get(hashedPart) ?? new Set()).add(versionKey));
    }
  }

  /** A subscription found by another key holds `versionKey`: it is not unclaimed, whether scanned yet or not. */
  claim(versionKey: string): void {
    if (!this.resolve(versionKey)) {
      this.#claimedBeforeScanned.add(versionKey);
    }
  }

  /** Removes `versionKey` from the unclaimed ones; true when it was there. */
  resolve(versionKey: string): boolean {
    const hashedPart = this.#layout.versionKeyHashedPart(versionKey) ?? '';
    const keys = this.#byHashedPart.get(hashedPart);
    if (keys?.delete(versionKey) !== true) {
      return false;
    }
    if (keys.size === 0) {
      this.#byHashedPart.delete(hashedPart);
    }
    return true;
  }

  /** Whether an unclaimed version key carries the tag (or whole key) `hashedPart`. */
  hasHashedPart(hashedPart: string): boolean {
    return this.#byHashedPart.has(hashedPart);
  }

  /** The unclaimed version keys, sorted. */
  remaining(): string[] {
    return [...this.#byHashedPart.values()].flatMap((keys) => [...keys]).sort();
  }
}

/**
 * The checkpoint key `key` of a subscription whose version key is unclaimed, as its id; `undefined` for any other
 * key. With no `keyPrefix` a second scan looks for them: a tagged id's version key holds only the tag.
 */
export function idOfUnclaimedCheckpointKey(
  key: string,
  layout: CheckpointKeyLayout,
  unclaimed: UnclaimedVersionKeys,
): string | undefined {
  if (!unclaimed.hasHashedPart(clusterHashedPart(key))) {
    return undefined;
  }
  const id = layout.subscriptionIdOf(key);
  let versionKey: string;
  try {
    versionKey = id === undefined ? '' : layout.keysFor(id).versionKey;
  } catch {
    return undefined;
  }
  return id !== undefined && unclaimed.resolve(versionKey) ? id : undefined;
}

/**
 * Runs `SCAN <cursor> COUNT 1000` to the end on each master in turn, never `KEYS`, handing each reply's keys to
 * `visit` before asking for the next, so that nothing but one reply is held; resolves to how many keys it saw.
 */
export async function scanEveryMaster(
  masters: readonly IORedis.Redis[],
  progress: ScanProgress,
  visit: (keys: readonly string[]) => Promise<void>,
  match?: string,
): Promise<number> {
  let scanned = 0;
  for (const [index, master] of masters.entries()) {
    const where = `keys scanned (master ${index + 1} of ${masters.length}, ${master.options.host ?? ''}:${master.options.port ?? ''})`;
    let cursor = '0';
    do {
      const [next, keys] =
        match === undefined
          ? await master.scan(cursor, 'COUNT', scanCount)
          : await master.scan(cursor, 'MATCH', match, 'COUNT', scanCount);
      scanned += keys.length;
      progress.advance(keys.length, masters.length === 1 ? 'keys scanned' : where);
      await visit(keys);
      cursor = next;
    } while (cursor !== '0');
  }
  return scanned;
}
