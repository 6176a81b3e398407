import { expect } from 'vitest';
import type { DualAnchorCheckpointStore } from '../../dual-anchor/index.js';
import {
  CheckpointWriteCondition,
  CheckpointWriteConditionNotFulfilledError,
  UnsupportedWriteConditionError,
} from '../../index.js';
import { expectRefused } from '../expect-refused.js';
import { shuffled } from '../shuffled.js';
import { untyped } from '../untyped.js';
import {
  seenToken,
  processedToken,
  freshToken,
  deadToken,
  seenAt,
  processedAt,
  heartbeatAt,
  resetAt,
  partialWrites,
  wholeRecordWrite,
  type SuiteRegistrar,
  type CaseRegistrar,
  fullRecord,
  emptyRecord,
} from './fixtures.js';

const { any, notOlderThan, ifAbsent } = CheckpointWriteCondition;

/** A store that persists nothing: every valid write resolves, nothing is found, every condition but `any()` is refused. */
export function describePersistingNothing(describe: SuiteRegistrar, test: CaseRegistrar): void {
  describe('a store that persists nothing', () => {
    test('every valid write resolves, and nothing is ever found', async (store) => {
      for (const { write } of [wholeRecordWrite, ...partialWrites]) {
        await write(store, 'orders');
        await write(store, 'orders', any());
      }
      expect(await store.findByStreamName('orders')).toBeUndefined();
      await store.delete('orders');
      await store.delete('never-saved');
      expect(await store.findByStreamName('orders')).toBeUndefined();
    });

    test('it cannot evaluate conditions, so it refuses every condition but any()', async (store) => {
      expect(store.evaluatesWriteConditions()).toBe(false);
      await expectConditionsRefused(store, false);
    });
  });
}

/** Fencing: each write's trailing condition is judged against one stored version per stream, or refused by a store that cannot. */
export function describeFencing(describe: SuiteRegistrar, test: CaseRegistrar): void {
  const fencing = (
    title: string,
    body: (store: DualAnchorCheckpointStore) => Promise<void>,
    timeoutMs?: number,
  ): void => {
    test(
      title,
      async (store) => {
        if (store.evaluatesWriteConditions()) {
          await body(store);
        } else {
          await expectConditionsRefused(store, true);
        }
      },
      timeoutMs,
    );
  };

  describe('fencing (every write takes a trailing condition)', () => {
    fencing('notOlderThan on a brand-new stream is accepted by every write, and stores its version', async (store) => {
      for (const { label, write } of [wholeRecordWrite, ...partialWrites]) {
        const streamName = `fresh ${label}`;
        await write(store, streamName, notOlderThan(5));
        expect(await store.findByStreamName(streamName), label).toBeDefined();
        await expectRefused(store.saveHeartbeat(streamName, resetAt, notOlderThan(4)), streamName, 5n);
      }
    });

    fencing(
      'an older version is refused by every write, with the stored version, and changes nothing',
      async (store) => {
        for (const { label, write } of [wholeRecordWrite, ...partialWrites]) {
          const streamName = `fenced ${label}`;
          await store.save(fullRecord(streamName), notOlderThan(8));
          const refusal = await expectRefused(write(store, streamName, notOlderThan(7)), streamName, 8n);
          expect(String(refusal.condition), label).toBe('notOlderThan(7)');
          expect(await store.findByStreamName(streamName), label).toEqual(fullRecord(streamName));
          await expectRefused(write(store, streamName, notOlderThan(7)), streamName, 8n);
        }
      },
    );

    fencing('an equal or newer version is accepted by every write, and a newer one is stored', async (store) => {
      for (const { label, write, sets } of [wholeRecordWrite, ...partialWrites]) {
        const streamName = `accepted ${label}`;
        await store.save({ ...fullRecord(streamName), metadata: { before: true } }, notOlderThan(8));
        await write(store, streamName, notOlderThan(8));
        expect(await store.findByStreamName(streamName), label).toEqual({
          ...fullRecord(streamName),
          ...(label === 'save' ? {} : { metadata: { before: true } }),
          ...sets,
        });
        await write(store, streamName, notOlderThan(9));
        await expectRefused(write(store, streamName, notOlderThan(8)), streamName, 9n);
      }
    });

    fencing(
      'one version per stream: a token stored through one anchor fences the other anchor and the heartbeat',
      async (store) => {
        await store.saveSeen('orders', seenToken, seenAt, undefined, notOlderThan(6));
        await expectRefused(
          store.saveProcessed('orders', 'zombie', processedAt, undefined, notOlderThan(5)),
          'orders',
          6n,
        );
        await expectRefused(store.saveHeartbeat('orders', heartbeatAt, notOlderThan(5)), 'orders', 6n);
        await expectRefused(store.resetAfterHistoryLost('orders', null, null, resetAt, notOlderThan(5)), 'orders', 6n);
        expect(await store.findByStreamName('orders')).toEqual({
          ...emptyRecord('orders'),
          lastSeenToken: seenToken,
          lastSeenTimestamp: seenAt,
        });
        await store.saveProcessed('orders', processedToken, processedAt, undefined, notOlderThan(6));
        await expectRefused(store.saveSeen('orders', 'zombie', seenAt, undefined, notOlderThan(5)), 'orders', 6n);
        expect(await store.findByStreamName('orders')).toMatchObject({ lastSeenToken: seenToken });
      },
    );

    fencing('any() and a left-out condition write, and leave a stored version exactly as it was', async (store) => {
      await store.saveProcessed('orders', 'fenced', processedAt, undefined, notOlderThan(9));
      await store.saveProcessed('orders', 'unfenced', processedAt, undefined, any());
      await store.saveSeen('orders', 'unfenced', seenAt);
      await store.save(fullRecord('orders'));
      await store.resetAfterHistoryLost('orders', freshToken, deadToken, resetAt, any());
      await expectRefused(
        store.saveProcessed('orders', 'zombie', processedAt, undefined, notOlderThan(4)),
        'orders',
        9n,
      );
      expect(await store.findByStreamName('orders')).toEqual({
        ...fullRecord('orders'),
        lastSeenToken: freshToken,
        lastSeenTimestamp: resetAt,
        lastHeartbeatTimestamp: resetAt,
      });
    });

    fencing('compares versions beyond 2**53 exactly', async (store) => {
      const nearSafeLimit = 2n ** 53n + 1n;
      await store.saveProcessed('near', 'a', processedAt, undefined, notOlderThan(nearSafeLimit));
      await expectRefused(
        store.saveProcessed('near', 'b', processedAt, undefined, notOlderThan(2n ** 53n)),
        'near',
        nearSafeLimit,
      );
      await store.saveSeen('big', 'a', seenAt, undefined, notOlderThan(2n ** 63n - 2n));
      await store.saveSeen('big', 'b', seenAt, undefined, notOlderThan(2n ** 63n - 1n));
      await expectRefused(
        store.saveSeen('big', 'c', seenAt, undefined, notOlderThan(2n ** 63n - 2n)),
        'big',
        2n ** 63n - 1n,
      );
      expect(await store.findByStreamName('big')).toMatchObject({ lastSeenToken: 'b' });
      expect(await store.findByStreamName('near')).toMatchObject({ lastProcessedToken: 'a' });
    });

    fencing(
      'ifAbsent() is accepted only while nothing is stored, stores no version, and a refusal carries the stored version',
      async (store) => {
        for (const { label, write } of [wholeRecordWrite, ...partialWrites]) {
          const streamName = `pinned ${label}`;
          await write(store, streamName, ifAbsent());
          expect(await store.findByStreamName(streamName), label).toBeDefined();
          await expectRefused(write(store, streamName, ifAbsent()), streamName, undefined);
          await store.saveHeartbeat(streamName, heartbeatAt, notOlderThan(0));
          await expectRefused(store.saveSeen(streamName, 'late', seenAt, undefined, ifAbsent()), streamName, 0n);
        }
        await store.saveHeartbeat('heartbeat-only', heartbeatAt);
        await expectRefused(store.save(fullRecord('heartbeat-only'), ifAbsent()), 'heartbeat-only', undefined);
        expect(await store.findByStreamName('heartbeat-only')).toEqual({
          ...emptyRecord('heartbeat-only'),
          lastHeartbeatTimestamp: heartbeatAt,
        });
      },
    );

    fencing('delete clears the stored version with the record', async (store) => {
      await store.save(fullRecord('orders'), notOlderThan(9));
      await store.delete('orders');
      await store.saveProcessed('orders', 'after', processedAt, undefined, notOlderThan(1));
      await expectRefused(store.saveHeartbeat('orders', heartbeatAt, notOlderThan(0)), 'orders', 1n);
      await store.delete('orders');
      await store.saveSeen('orders', 'pinned', seenAt, undefined, ifAbsent());
    });

    fencing(
      'a refused resetAfterHistoryLost changes nothing, not even the seen pair or the heartbeat',
      async (store) => {
        const record = { ...fullRecord('orders'), lastProcessedToken: deadToken };
        await store.save(record, notOlderThan(3));
        await expectRefused(
          store.resetAfterHistoryLost('orders', freshToken, deadToken, resetAt, notOlderThan(2)),
          'orders',
          3n,
        );
        await expectRefused(store.resetAfterHistoryLost('orders', null, deadToken, resetAt, ifAbsent()), 'orders', 3n);
        expect(await store.findByStreamName('orders')).toEqual(record);
      },
    );

    fencing(
      "reads a condition's kind and version once: one that changes between reads is judged as first read",
      async (store) => {
        await store.save(fullRecord('orders'), notOlderThan(8));
        let reads = 0;
        const shifting = {
          get kind(): string {
            reads += 1;
            return reads === 1 ? 'notOlderThan' : 'any';
          },
          version: 7n,
        };
        await expectRefused(
          store.saveProcessed('orders', 'zombie', processedAt, heartbeatAt, untyped(shifting)),
          'orders',
          8n,
        );
        expect(await store.findByStreamName('orders')).toEqual(fullRecord('orders'));
      },
    );

    fencing(
      '50 concurrent fenced writers with shuffled tokens end with the highest token, and every refusal names a newer version',
      async (store) => {
        const tokens = shuffled(Array.from({ length: 50 }, (_, index) => BigInt(index + 1)));
        const outcomes = await Promise.allSettled(
          tokens.map((token) =>
            store.saveProcessed('contended', { token: String(token) }, processedAt, heartbeatAt, notOlderThan(token)),
          ),
        );
        for (const [index, outcome] of outcomes.entries()) {
          if (outcome.status === 'rejected') {
            const refusal: unknown = outcome.reason;
            expect(refusal).toBeInstanceOf(CheckpointWriteConditionNotFulfilledError);
            const { storedVersion } = refusal as CheckpointWriteConditionNotFulfilledError;
            expect((storedVersion ?? 0n) > (tokens[index] ?? 0n)).toBe(true);
          }
        }
        expect(await store.findByStreamName('contended')).toMatchObject({ lastProcessedToken: { token: '50' } });
        await expectRefused(store.saveHeartbeat('contended', resetAt, notOlderThan(49)), 'contended', 50n);
      },
      60_000,
    );

    fencing('fenced writers of the two anchors interleaved: a stale token moves neither anchor', async (store) => {
      await store.saveSeen('orders', 'seen-by-3', seenAt, undefined, notOlderThan(3));
      await store.saveProcessed('orders', 'processed-by-4', processedAt, undefined, notOlderThan(4));
      const stale = await Promise.allSettled([
        store.saveSeen('orders', 'seen-by-3-late', seenAt, heartbeatAt, notOlderThan(3)),
        store.saveProcessed('orders', 'processed-by-3-late', processedAt, heartbeatAt, notOlderThan(3)),
        store.saveProcessed('orders', 'processed-by-4-again', resetAt, undefined, notOlderThan(4)),
      ]);
      expect(stale.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
      expect(await store.findByStreamName('orders')).toEqual({
        ...emptyRecord('orders'),
        lastSeenToken: 'seen-by-3',
        lastSeenTimestamp: seenAt,
        lastProcessedToken: 'processed-by-4-again',
        lastProcessedTimestamp: resetAt,
      });
    });
  });
}

/** Every write with every condition but `any()` is refused with `UnsupportedWriteConditionError`; `any()` writes. */
async function expectConditionsRefused(store: DualAnchorCheckpointStore, persists: boolean): Promise<void> {
  for (const { label, write } of [wholeRecordWrite, ...partialWrites]) {
    for (const condition of [notOlderThan(7), ifAbsent()]) {
      await expect(write(store, 'incapable', condition), `${label} with ${String(condition)}`).rejects.toThrow(
        UnsupportedWriteConditionError,
      );
    }
  }
  expect(await store.findByStreamName('incapable')).toBeUndefined();
  await store.saveProcessed('incapable', processedToken, processedAt, heartbeatAt, any());
  await store.saveSeen('incapable', seenToken, seenAt);
  const expected = persists
    ? {
        ...emptyRecord('incapable'),
        lastProcessedToken: processedToken,
        lastProcessedTimestamp: processedAt,
        lastHeartbeatTimestamp: heartbeatAt,
        lastSeenToken: seenToken,
        lastSeenTimestamp: seenAt,
      }
    : undefined;
  expect(await store.findByStreamName('incapable')).toEqual(expected);
}
