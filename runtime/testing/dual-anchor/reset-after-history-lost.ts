import { expect } from 'vitest';
import type { DualAnchorCheckpoint } from '../../dual-anchor/index.js';
import {
  freshToken,
  deadToken,
  processedAt,
  resetAt,
  type SuiteRegistrar,
  type CaseRegistrar,
  fullRecord,
  emptyRecord,
} from './fixtures.js';

/** Every branch of `resetAfterHistoryLost`, and the read-then-write trap: a processed anchor re-acquired concurrently survives. */
export function describeResetAfterHistoryLost(describe: SuiteRegistrar, test: CaseRegistrar): void {
  describe('resetAfterHistoryLost', () => {
    const withDeadProcessed = (streamName: string): DualAnchorCheckpoint => ({
      ...fullRecord(streamName),
      lastProcessedToken: deadToken,
    });
    const afterReset = (record: DualAnchorCheckpoint, clearsProcessed: boolean): DualAnchorCheckpoint => ({
      ...record,
      lastSeenToken: freshToken,
      lastSeenTimestamp: resetAt,
      lastHeartbeatTimestamp: resetAt,
      ...(clearsProcessed ? { lastProcessedToken: null, lastProcessedTimestamp: null } : {}),
    });

    test('clears the processed pair while it still equals the expected token, and installs the fresh seen pair and heartbeat', async (store) => {
      await store.save(withDeadProcessed('orders'));
      await store.resetAfterHistoryLost('orders', freshToken, deadToken, resetAt);
      expect(await store.findByStreamName('orders')).toEqual(afterReset(withDeadProcessed('orders'), true));
    });

    test('compares the tokens as JSON values with object key order ignored', async (store) => {
      await store.save(withDeadProcessed('orders'));
      const reordered = { shard: { b: [true, null], a: 1 }, position: 'expired-2' };
      await store.resetAfterHistoryLost('orders', freshToken, reordered, resetAt);
      expect(await store.findByStreamName('orders')).toEqual(afterReset(withDeadProcessed('orders'), true));
    });

    for (const [label, stored, expected] of [
      ['array order', [1, 2], [2, 1]],
      ['a number against the same digits as a string', 1, '1'],
      ['a missing key', { a: 1, b: 2 }, { a: 1 }],
      ['null against false inside an object', { a: null }, { a: false }],
      ['case of a string', 'Expired', 'expired'],
    ] as const) {
      test(`a different JSON value keeps the processed pair: ${label}`, async (store) => {
        const record = { ...fullRecord('orders'), lastProcessedToken: stored };
        await store.save(record);
        await store.resetAfterHistoryLost('orders', freshToken, expected, resetAt);
        expect(await store.findByStreamName('orders')).toEqual(afterReset(record, false));
      });
    }

    test('keeps a processed anchor that was re-acquired since the history loss was detected', async (store) => {
      await store.save(withDeadProcessed('orders'));
      await store.saveProcessed('orders', 'reacquired', processedAt);
      await store.resetAfterHistoryLost('orders', freshToken, deadToken, resetAt);
      expect(await store.findByStreamName('orders')).toEqual(
        afterReset(
          { ...fullRecord('orders'), lastProcessedToken: 'reacquired', lastProcessedTimestamp: processedAt },
          false,
        ),
      );
    });

    test('a processed anchor re-acquired concurrently with the reset survives (the read-then-write trap)', async (store) => {
      for (let round = 0; round < 100; round += 1) {
        const streamName = `race-${round}`;
        await store.save(withDeadProcessed(streamName));
        const reacquired = { position: 'reacquired', round };
        const reset = (): Promise<void> => store.resetAfterHistoryLost(streamName, freshToken, deadToken, resetAt);
        const reacquire = (): Promise<void> => store.saveProcessed(streamName, reacquired, processedAt);
        await Promise.all(round % 2 === 0 ? [reset(), reacquire()] : [reacquire(), reset()]);
        const found = await store.findByStreamName(streamName);
        expect(found?.lastProcessedToken, `round ${round}: every order of the two writes keeps it`).toEqual(reacquired);
        expect(found?.lastProcessedTimestamp).toEqual(processedAt);
        expect(found?.lastSeenToken).toEqual(freshToken);
      }
    }, 60_000);

    test('a null expected token clears the processed pair only while no processed token is stored', async (store) => {
      const timestampOnly = { ...fullRecord('timestamp-only'), lastProcessedToken: null };
      await store.save(timestampOnly);
      await store.resetAfterHistoryLost('timestamp-only', freshToken, null, resetAt);
      expect(await store.findByStreamName('timestamp-only')).toEqual(afterReset(timestampOnly, true));

      await store.save(fullRecord('live'));
      await store.resetAfterHistoryLost('live', freshToken, null, resetAt);
      expect(await store.findByStreamName('live')).toEqual(afterReset(fullRecord('live'), false));
    });

    test('an expected token does not match a missing processed token', async (store) => {
      const timestampOnly = { ...fullRecord('orders'), lastProcessedToken: null };
      await store.save(timestampOnly);
      await store.resetAfterHistoryLost('orders', freshToken, deadToken, resetAt);
      expect(await store.findByStreamName('orders')).toEqual(afterReset(timestampOnly, false));
    });

    test('a null fresh token clears the seen pair and the heartbeat, and the guard still decides the processed pair', async (store) => {
      await store.save(withDeadProcessed('dead'));
      await store.resetAfterHistoryLost('dead', null, deadToken, resetAt);
      expect(await store.findByStreamName('dead')).toEqual({
        ...withDeadProcessed('dead'),
        lastSeenToken: null,
        lastSeenTimestamp: null,
        lastHeartbeatTimestamp: null,
        lastProcessedToken: null,
        lastProcessedTimestamp: null,
      });

      await store.save(fullRecord('alive'));
      await store.resetAfterHistoryLost('alive', null, deadToken, resetAt);
      expect(await store.findByStreamName('alive')).toEqual({
        ...fullRecord('alive'),
        lastSeenToken: null,
        lastSeenTimestamp: null,
        lastHeartbeatTimestamp: null,
      });
    });

    test('a reset with nothing fresh and nothing expected on a brand-new stream still upserts a record', async (store) => {
      await store.resetAfterHistoryLost('new-stream', null, null, resetAt);
      expect(await store.findByStreamName('new-stream')).toEqual(emptyRecord('new-stream'));
    });
  });
}
