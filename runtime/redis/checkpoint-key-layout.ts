import { createHash } from 'node:crypto';
import { quoteText } from '../describe-value.js';
import { clusterHashedPart, clusterHashTag } from './cluster-hash-slot.js';

const recentKeysLimit = 1_024;
/** `'}'` and the 64 lowercase hex digits of a SHA-256 that end every version key. */
const versionKeyEnd = /\}[0-9a-f]{64}$/u;

/** The default prefix of version keys, `checkpoint-fencing:version:`. */
export const defaultRedisVersionKeyPrefix = 'checkpoint-fencing:version:';

/** The two Redis keys of one subscription. */
export interface CheckpointKeys {
  /** `keyPrefix + subscriptionId`; holds the checkpoint string, readable with a plain `GET`. */
  readonly checkpointKey: string;
  /** `versionKeyPrefix + '{' + hashTag(checkpointKey) + '}' + sha256hex(subscriptionId)`; holds the version as a decimal string. */
  readonly versionKey: string;
  /** Whether Redis Cluster puts both keys in one slot; see {@link CheckpointKeyLayout.clusterAligned}. */
  readonly clusterAligned: boolean;
}

/**
 * Where a subscription's checkpoint and version live: the key layout shared with Occurrent's Redis storage.
 * The version key carries the checkpoint key's hash tag (or the whole key as its tag), so both share a Cluster slot
 * whenever that is possible; the SHA-256 of the id keeps ids that share a tag from sharing a version.
 */
export class CheckpointKeyLayout {
  /** Keys of recently used ids: a service writes the same few subscriptions over and over, and SHA-256 costs more than the rest of a write's preparation. */
  readonly #recent = new Map<string, CheckpointKeys>();

  constructor(
    readonly keyPrefix: string,
    readonly versionKeyPrefix: string,
  ) {
    if (versionKeyPrefix === '' || /[{}]/.test(versionKeyPrefix)) {
      throw new TypeError(
        `versionKeyPrefix ${JSON.stringify(versionKeyPrefix)} is invalid: it must be non-empty and free of "{" and "}", ` +
          'because the version key adds its own hash tag right after it. Use the default "checkpoint-fencing:version:" or a prefix like "app:checkpoint-version:".',
      );
    }
    if (keyPrefix.startsWith(versionKeyPrefix)) {
      throw new TypeError(
        `keyPrefix ${JSON.stringify(keyPrefix)} starts with versionKeyPrefix ${JSON.stringify(versionKeyPrefix)}, so every checkpoint key would ` +
          'fall inside the reserved version-key namespace. Choose prefixes that do not overlap this way.',
      );
    }
  }

  /** Both keys of `subscriptionId`; throws `TypeError` for an id whose checkpoint key falls in the reserved version-key namespace. */
  keysFor(subscriptionId: string): CheckpointKeys {
    const known = this.#recent.get(subscriptionId);
    if (known !== undefined) {
      return known;
    }
    const checkpointKey = this.keyPrefix + subscriptionId;
    if (checkpointKey.startsWith(this.versionKeyPrefix)) {
      throw new TypeError(
        `Subscription id ${quoteText(subscriptionId)} is refused: its checkpoint key ${quoteText(checkpointKey)} starts with the reserved ` +
          `versionKeyPrefix ${JSON.stringify(this.versionKeyPrefix)}, so writing it could overwrite another subscription's version. ` +
          'Use an id outside that prefix, or give the storage a keyPrefix.',
      );
    }
    const digest = createHash('sha256').update(subscriptionId, 'utf8').digest('hex');
    const keys = {
      checkpointKey,
      versionKey: `${this.versionKeyPrefix}{${clusterHashedPart(checkpointKey)}}${digest}`,
      clusterAligned: CheckpointKeyLayout.clusterAligned(checkpointKey),
    };
    if (this.#recent.size >= recentKeysLimit) {
      this.#recent.clear();
    }
    this.#recent.set(subscriptionId, keys);
    return keys;
  }

  /**
   * The subscription id whose checkpoint key is `checkpointKey`: the key without `keyPrefix`. `undefined` for a key
   * outside `keyPrefix` or inside the version-key namespace, which no id of this layout has.
   */
  subscriptionIdOf(checkpointKey: string): string | undefined {
    if (!checkpointKey.startsWith(this.keyPrefix) || checkpointKey.startsWith(this.versionKeyPrefix)) {
      return undefined;
    }
    return checkpointKey.slice(this.keyPrefix.length);
  }

  /**
   * What Cluster hashes of the checkpoint key behind `versionKey` (its hash tag, or the whole key when it has none),
   * when `versionKey` is shaped like a version key of this layout; `undefined` otherwise. The id itself is not in the
   * key, only its SHA-256: a candidate id is confirmed by `keysFor(id).versionKey === versionKey`.
   */
  versionKeyHashedPart(versionKey: string): string | undefined {
    const rest = versionKey.slice(this.versionKeyPrefix.length);
    if (!versionKey.startsWith(this.versionKeyPrefix) || !rest.startsWith('{') || !versionKeyEnd.test(rest)) {
      return undefined;
    }
    return rest.slice(1, -65);
  }

  /**
   * The subscription id behind `versionKey` when its checkpoint key has no hash tag (then the version key holds the
   * whole checkpoint key, and the SHA-256 confirms it); `undefined` for any other key. A tagged id's version key holds
   * only the tag: find the id among the checkpoint keys carrying that tag.
   */
  subscriptionIdOfVersionKey(versionKey: string): string | undefined {
    const hashedPart = this.versionKeyHashedPart(versionKey);
    const candidate = hashedPart === undefined ? undefined : this.subscriptionIdOf(hashedPart);
    return candidate !== undefined && this.#hasVersionKey(candidate, versionKey) ? candidate : undefined;
  }

  /** Whether `versionKey` is the version key of `subscriptionId`; false for an id this layout refuses. */
  #hasVersionKey(subscriptionId: string, versionKey: string): boolean {
    try {
      return this.keysFor(subscriptionId).versionKey === versionKey;
    } catch {
      return false;
    }
  }

  /**
   * Whether Redis Cluster puts both keys of `checkpointKey` in one slot: true when it has a hash tag, or when the whole
   * key is non-empty and free of `}` (then `{checkpointKey}` is a valid tag in the version key).
   */
  static clusterAligned(checkpointKey: string): boolean {
    return clusterHashTag(checkpointKey) !== undefined || (checkpointKey !== '' && !checkpointKey.includes('}'));
  }
}
