import { expect } from 'vitest';
import {
  seenToken,
  seenAt,
  processedAt,
  heartbeatAt,
  resetAt,
  partialWrites,
  type SuiteRegistrar,
  type CaseRegistrar,
  fullRecord,
  emptyRecord,
} from './fixtures.js';

/** The plain-UPDATE trap: a partial write on a stream with no record yet must create it, not update nothing. */
export function describeBrandNewStreams(describe: SuiteRegistrar, test: CaseRegistrar): void {
  describe('every partial write on a brand-new stream persists (the plain-UPDATE trap)', () => {
    for (const { label, write, sets } of partialWrites) {
      test(`${label} creates the record with its own fields, everything else null`, async (store) => {
        await write(store, 'new-stream');
        expect(await store.findByStreamName('new-stream')).toEqual({ ...emptyRecord('new-stream'), ...sets });
      });
    }

    test('an idle stream certified only by heartbeats has a seen anchor and no processed one', async (store) => {
      await store.saveSeen('idle', seenToken, seenAt, heartbeatAt);
      await store.saveHeartbeat('idle', resetAt);
      expect(await store.findByStreamName('idle')).toEqual({
        ...emptyRecord('idle'),
        lastSeenToken: seenToken,
        lastSeenTimestamp: seenAt,
        lastHeartbeatTimestamp: resetAt,
      });
    });
  });
}

/** The whole-row trap: a partial write over a full record changes its own fields and nothing else. */
export function describeFieldIsolation(describe: SuiteRegistrar, test: CaseRegistrar): void {
  describe('field isolation: each partial write touches only its own fields', () => {
    for (const { label, write, sets } of partialWrites) {
      test(`${label} over a full record changes exactly its fields`, async (store) => {
        await store.save(fullRecord('orders'));
        await store.save(fullRecord('payments'));
        await write(store, 'orders');
        expect(await store.findByStreamName('orders')).toEqual({ ...fullRecord('orders'), ...sets });
        expect(await store.findByStreamName('payments')).toEqual(fullRecord('payments'));
      });
    }

    test('a seen write never touches the processed pair, and a processed write never the seen pair', async (store) => {
      await store.saveSeen('orders', 'seen-1', seenAt);
      await store.saveProcessed('orders', 'processed-1', processedAt);
      await store.saveSeen('orders', 'seen-2', heartbeatAt);
      expect(await store.findByStreamName('orders')).toMatchObject({
        lastSeenToken: 'seen-2',
        lastProcessedToken: 'processed-1',
        lastProcessedTimestamp: processedAt,
      });
      await store.saveProcessed('orders', 'processed-2', resetAt);
      expect(await store.findByStreamName('orders')).toMatchObject({
        lastSeenToken: 'seen-2',
        lastSeenTimestamp: heartbeatAt,
        lastProcessedToken: 'processed-2',
      });
    });
  });
}
