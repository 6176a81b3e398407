import type { Cluster, Redis } from 'ioredis';
import { expect } from 'vitest';
import { CheckpointWriteCondition, RedisCheckpointStorage } from '../../../runtime/index.js';
import { eventually } from '../leases/event-log.js';
import type { RedisAddress } from './admin-connection.js';
import { withAdminConnection } from './admin-connection.js';
import {
  prefixOf,
  variants,
  type FailoverTrialClients,
  type OldHolders,
  type TrialOutcome,
  type Variant,
} from './failover-trial-clients.js';

// The steps issue 33's partition trials share, on Sentinel and on a Cluster: each trial's lease has a checkpoint of its
// own (its id, or on a Cluster `{lease}`, in the lease's slot), written before the cut, then granted and written by old
// holders that may be on the wrong side, then taken by new holders on the promoted master.

/** One partition trial: what each variant's old holder did, and how long the subscription stayed unowned by default. */
export interface PartitionTrial {
  readonly outcomes: Record<Variant, TrialOutcome>;
  readonly unownedMs: number;
}

/**
 * Writes version 1 of `checkpoint` on `master` for each variant and waits until its `replicas` have it: only what
 * happens during the cut may be lost. Without waitForReplicas and with a WAIT of its own, so this process reads no
 * replica count of the master: a client that starts after the partition must know no history of it.
 */
export async function writeBeforeTheCut(master: RedisAddress, checkpoint: string, replicas: number): Promise<void> {
  await withAdminConnection(master, async (admin) => {
    for (const variant of variants) {
      const storage = new RedisCheckpointStorage(admin, {
        keyPrefix: prefixOf(variant),
        versionKeyPrefix: `${prefixOf(variant)}version:`,
        waitForReplicas: false,
      });
      await storage.save(checkpoint, 'before@1', CheckpointWriteCondition.notOlderThan(1));
    }
    expect(await admin.call('WAIT', String(replicas), '5000'), 'every replica has the write before the cut').toBe(
      replicas,
    );
  });
}

/**
 * A new holder of each variant takes `lease` on the promoted master as soon as its client finds it, and makes a first
 * fenced write there, to a checkpoint of its own beside `checkpoint` (which holds versions written without a lease):
 * their tokens, and when the default's write was accepted.
 */
export async function newHoldersTake(
  newHolders: FailoverTrialClients<Redis | Cluster>,
  lease: string,
  checkpoint: string,
): Promise<{ tokens: Record<Variant, bigint | undefined>; writtenAt: number }> {
  const tokens: Record<Variant, bigint | undefined> = { default: undefined, 'opted out': undefined };
  let writtenAt = Number.NaN;
  await Promise.all(
    variants.map(async (variant) => {
      const newHolder = newHolders.strategy(variant);
      const storage = newHolders.storage(variant);
      await eventually(`${variant}: the new holder takes the lease on the promoted master`, () =>
        newHolder.register(lease, 'new-holder'),
      );
      const token = newHolder.fencingToken(lease);
      tokens[variant] = token;
      await eventually(`${variant}: the new holder's first fenced write is accepted`, () =>
        storage
          .save(`${checkpoint}new-holder`, `new@${token}`, CheckpointWriteCondition.notOlderThan(token ?? 0n))
          .then(
            () => true,
            async () => {
              // What a subscription does after a failed write: read again, which makes a Cluster client refresh its slots.
              await storage.read(checkpoint).catch(() => undefined);
              return false;
            },
          ),
      );
      if (variant === 'default') {
        writtenAt = performance.now();
      }
    }),
  );
  return { tokens, writtenAt };
}

/** What each variant's old holder did: it answers hasLock with the new holder's token, and its accepted write is lost. */
export function outcomesOf(
  oldHolders: OldHolders,
  lease: string,
  written: Record<Variant, unknown>,
  newTokens: Record<Variant, bigint | undefined>,
): Record<Variant, TrialOutcome> {
  const outcome = (variant: Variant): TrialOutcome => {
    const oldToken = oldHolders.strategies[variant].fencingToken(lease);
    return {
      // The measure: both holders answer hasLock with the same token, so both writes would be accepted.
      duplicatedToken:
        oldHolders.strategies[variant].hasLock(lease, 'old-holder') &&
        oldToken !== undefined &&
        oldToken === newTokens[variant],
      acceptedWriteLost: written[variant] === 'accepted',
    };
  };
  return { default: outcome('default'), 'opted out': outcome('opted out') };
}

/**
 * One grant and one conditional write by each old holder, on `lease` and a checkpoint beside `checkpoint`, so that it
 * has read the master's replicas; tried until made (after a failover a client finds the new master in its own time).
 */
export async function warmUp(oldHolders: OldHolders, lease: string, checkpoint: string): Promise<void> {
  for (const variant of variants) {
    const strategy = oldHolders.strategies[variant];
    const storage = oldHolders.storages[variant];
    await eventually(`${variant}: a warm-up grant`, async () => {
      const granted = await strategy.register(lease, 'warm-up');
      await strategy.unregister(lease, 'warm-up');
      return granted;
    });
    await eventually(`${variant}: a warm-up write`, () =>
      storage.save(`${checkpoint}warm-up`, 'warm-up@0', CheckpointWriteCondition.notOlderThan(0)).then(
        () => true,
        async () => {
          await storage.read(checkpoint).catch(() => undefined);
          return false;
        },
      ),
    );
  }
}

/**
 * Gives `lease` up for each old holder in `oldHolders`, if there are any (one refused may otherwise try again in a later
 * trial), and closes the clients the trial made.
 */
export async function endTrial(
  oldHolders: OldHolders | undefined,
  lease: string,
  made: readonly FailoverTrialClients<Redis | Cluster>[],
): Promise<void> {
  if (oldHolders !== undefined) {
    await Promise.all(variants.map((variant) => oldHolders.strategies[variant].unregister(lease, 'old-holder')));
  }
  await Promise.all(made.map((clients) => clients.close()));
}

/** Prints `trials`' outcomes and unowned times under `label`, and checks them: none by default, most opted out. */
export function checkPartitionTrials(label: string, trials: readonly PartitionTrial[]): void {
  const count = (variant: Variant, key: keyof TrialOutcome): number =>
    trials.filter(({ outcomes }) => outcomes[variant][key]).length;
  const unowned = trials.map(({ unownedMs }) => Math.round(unownedMs)).sort((a, b) => a - b);
  console.info(
    `${label}: ${trials.length} per variant; default: ${count('default', 'duplicatedToken')} duplicated tokens, ` +
      `${count('default', 'acceptedWriteLost')} accepted writes lost; waitForReplicas false: ` +
      `${count('opted out', 'duplicatedToken')} duplicated tokens, ${count('opted out', 'acceptedWriteLost')} accepted writes lost; ` +
      `unowned from the cut until the new holder wrote: median ${unowned[Math.floor(unowned.length / 2)]} ms ` +
      `(${unowned[0]}–${unowned.at(-1)} ms)`,
  );
  expect(count('default', 'duplicatedToken')).toBe(0);
  expect(count('default', 'acceptedWriteLost')).toBe(0);
  expect(count('opted out', 'duplicatedToken')).toBeGreaterThan(trials.length / 2);
  expect(count('opted out', 'acceptedWriteLost')).toBeGreaterThan(trials.length / 2);
}
