import type * as IORedis from 'ioredis';
import { clusterHashedPart, parseRedisLeaseKey, type CheckpointKeyLayout } from '../../runtime/redis/index.js';
import type { ScanProgress } from '../scan-progress.js';

/** The key layouts a scan recognises: the storage's checkpoint and version keys, the strategy's lease keys. */
export interface RedisKeyspaceLayout {
  readonly checkpoints: CheckpointKeyLayout;
  readonly leaseKeyPrefix: string;
}

/** The subscriptions a scan found. */
export interface RedisKeyspaceFindings {
  /** Every id with a lease or token key, a version key that names it, or (under a non-empty keyPrefix) a checkpoint. */
  readonly ids: ReadonlySet<string>;
  /** Version keys whose id no checkpoint or lease key tells: only a hash of the id is in the key. */
  readonly orphanVersionKeys: readonly string[];
  readonly keysScanned: number;
  readonly masters: number;
}

/** Keys a `SCAN` call asks for: large enough for few round trips, small enough to keep each reply short. */
const scanCount = 1_000;

/**
 * Finds every subscription in the keyspace with `SCAN … COUNT` on every master, never `KEYS`, keeping only what it
 * recognises, so memory grows with the subscriptions, not with the keys around them. Keys are recognised by the
 * storage's and the strategy's own layout code. With no `keyPrefix`, any key may be a checkpoint, so subscriptions
 * are found by their version and lease keys; a tagged id's version key holds only the tag and a hash of the id, and a
 * second scan looks for the checkpoint keys carrying that tag.
 */
export async function scanRedisKeyspace(
  masters: readonly IORedis.Redis[],
  layout: RedisKeyspaceLayout,
  progress: ScanProgress,
): Promise<RedisKeyspaceFindings> {
  const ids = new Set<string>();
  /** Version keys no id was found for yet, by the hashed part of their checkpoint key. */
  const unresolved = new Map<string, Set<string>>();
  const { checkpoints, leaseKeyPrefix } = layout;
  const keysScanned = await scanEveryMaster(masters, progress, (key) => {
    const lease = parseRedisLeaseKey(leaseKeyPrefix, key);
    if (lease !== undefined) {
      ids.add(lease.subscriptionId);
      return;
    }
    const hashedPart = checkpoints.versionKeyHashedPart(key);
    if (hashedPart !== undefined) {
      const id = checkpoints.subscriptionIdOfVersionKey(key);
      if (id === undefined) {
        unresolved.set(hashedPart, (unresolved.get(hashedPart) ?? new Set()).add(key));
      } else {
        ids.add(id);
      }
      return;
    }
    const id = checkpoints.keyPrefix === '' ? undefined : checkpoints.subscriptionIdOf(key);
    if (id !== undefined) {
      ids.add(id);
    }
  });
  for (const id of ids) {
    resolve(unresolved, checkpoints, id);
  }
  let secondScan = 0;
  // Under a non-empty keyPrefix every checkpoint key is an id already; without one, look for the tagged ones.
  if (unresolved.size > 0 && checkpoints.keyPrefix === '') {
    secondScan = await scanEveryMaster(masters, progress, (key) => {
      const id = unresolved.has(clusterHashedPart(key)) ? checkpoints.subscriptionIdOf(key) : undefined;
      if (id !== undefined && resolve(unresolved, checkpoints, id)) {
        ids.add(id);
      }
    });
  }
  return {
    ids,
    orphanVersionKeys: [...unresolved.values()].flatMap((keys) => [...keys]),
    keysScanned: keysScanned + secondScan,
    masters: masters.length,
  };
}

/** Removes `id`'s version key from `unresolved`; true when it was there. */
function resolve(unresolved: Map<string, Set<string>>, layout: CheckpointKeyLayout, id: string): boolean {
  let versionKey: string;
  try {
    versionKey = layout.keysFor(id).versionKey;
  } catch {
    return false;
  }
  const hashedPart = layout.versionKeyHashedPart(versionKey) ?? '';
  const keys = unresolved.get(hashedPart);
  if (keys?.delete(versionKey) !== true) {
    return false;
  }
  if (keys.size === 0) {
    unresolved.delete(hashedPart);
  }
  return true;
}

/** Runs `SCAN` to the end on each master in turn, handing every key to `visit`; resolves to how many keys it saw. */
async function scanEveryMaster(
  masters: readonly IORedis.Redis[],
  progress: ScanProgress,
  visit: (key: string) => void,
): Promise<number> {
  let scanned = 0;
  for (const [index, master] of masters.entries()) {
    const where = `keys scanned (master ${index + 1} of ${masters.length}, ${master.options.host ?? ''}:${master.options.port ?? ''})`;
    let cursor = '0';
    do {
      const [next, keys] = await master.scan(cursor, 'COUNT', scanCount);
      for (const key of keys) {
        visit(key);
      }
      scanned += keys.length;
      progress.advance(keys.length, masters.length === 1 ? 'keys scanned' : where);
      cursor = next;
    } while (cursor !== '0');
  }
  return scanned;
}
