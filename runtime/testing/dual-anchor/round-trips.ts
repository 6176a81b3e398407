import { expect } from 'vitest';
import type { DualAnchorCheckpoint, DualAnchorToken } from '../../dual-anchor/index.js';
import {
  processedToken,
  seenAt,
  processedAt,
  heartbeatAt,
  type SuiteRegistrar,
  type CaseRegistrar,
  fullRecord,
  emptyRecord,
} from './fixtures.js';

/** Upsert, find and delete: every field, stream name, token shape and timestamp comes back as written, as a copy. */
export function describeRoundTrips(describe: SuiteRegistrar, test: CaseRegistrar): void {
  describe('upsert, find and delete', () => {
    test('finds nothing for an unknown stream', async (store) => {
      expect(await store.findByStreamName('never-saved')).toBeUndefined();
    });

    test('save inserts a record, and finds it with every field', async (store) => {
      await store.save(fullRecord('orders'));
      expect(await store.findByStreamName('orders')).toEqual(fullRecord('orders'));
    });

    test('a second save replaces the whole record, nulls included', async (store) => {
      await store.save(fullRecord('orders'));
      const replacement: DualAnchorCheckpoint = {
        ...emptyRecord('orders'),
        instanceId: 'instance-b',
        lastProcessedToken: 'processed-9',
        metadata: { replaced: true },
      };
      await store.save(replacement);
      expect(await store.findByStreamName('orders')).toEqual(replacement);
    });

    test('keeps streams apart', async (store) => {
      await store.save(fullRecord('orders'));
      await store.saveSeen('payments', 'p-1', seenAt);
      expect(await store.findByStreamName('orders')).toEqual(fullRecord('orders'));
      expect(await store.findByStreamName('payments')).toEqual({
        ...emptyRecord('payments'),
        lastSeenToken: 'p-1',
        lastSeenTimestamp: seenAt,
      });
    });

    test('delete removes the record; deleting an unknown stream, or twice, does nothing', async (store) => {
      await store.delete('never-saved');
      await store.save(fullRecord('orders'));
      await store.delete('orders');
      expect(await store.findByStreamName('orders')).toBeUndefined();
      await store.delete('orders');
      expect(await store.findByStreamName('orders')).toBeUndefined();
      expect(await store.findByStreamName('never-saved')).toBeUndefined();
    });

    test('deleting one stream leaves another alone', async (store) => {
      await store.save(fullRecord('orders'));
      await store.save(fullRecord('payments'));
      await store.delete('orders');
      expect(await store.findByStreamName('payments')).toEqual(fullRecord('payments'));
    });

    test('a partial write after a delete starts a fresh record', async (store) => {
      await store.save(fullRecord('orders'));
      await store.delete('orders');
      await store.saveHeartbeat('orders', heartbeatAt);
      expect(await store.findByStreamName('orders')).toEqual({
        ...emptyRecord('orders'),
        lastHeartbeatTimestamp: heartbeatAt,
      });
    });

    for (const [label, streamName] of [
      ['unicode', 'заказы-🧾-注文'],
      ['long', `orders-${'x'.repeat(2_000)}`],
      ['brace-laden', '{tenant}-orders{v2}}{'],
      ['whitespace and quote', ' orders "v2"\n'],
    ] as const) {
      test(`round-trips a ${label} stream name`, async (store) => {
        await store.save(fullRecord(streamName));
        await store.saveProcessed(streamName, 'moved', processedAt);
        expect(await store.findByStreamName(streamName)).toEqual({
          ...fullRecord(streamName),
          lastProcessedToken: 'moved',
          lastProcessedTimestamp: processedAt,
        });
      });
    }

    test('round-trips tokens of every JSON shape', async (store) => {
      const tokens: readonly DualAnchorToken[] = [
        '',
        'plain',
        'a\nb\r\n"quoted" \\ 🧾 注文',
        'lone \uD800 surrogate inside a token',
        0,
        -17.25,
        1e21,
        Number.MAX_SAFE_INTEGER,
        true,
        false,
        [],
        {},
        [1, 'two', null, [false], { three: 3 }],
        { _data: '8263F0A1B2000000012B022C0100296E5A1004', nested: { deeper: { list: [{}, []] } } },
      ];
      for (const [index, token] of tokens.entries()) {
        await store.saveSeen(`token-${index}`, token, seenAt);
        await store.saveProcessed(`token-${index}`, token, processedAt);
        const found = await store.findByStreamName(`token-${index}`);
        expect(found?.lastSeenToken, `token ${JSON.stringify(token)}`).toEqual(token);
        expect(found?.lastProcessedToken, `token ${JSON.stringify(token)}`).toEqual(token);
      }
    });

    test('round-trips timestamps to the millisecond, from year 1 to year 9999 and the epoch itself', async (store) => {
      const dates = [
        new Date('0001-01-01T00:00:00.000Z'),
        new Date('1969-07-20T20:17:40.001Z'),
        new Date(0),
        new Date('2024-02-29T23:59:59.999Z'),
        new Date('9999-12-31T23:59:59.999Z'),
      ];
      for (const [index, date] of dates.entries()) {
        await store.save({
          ...emptyRecord(`date-${index}`),
          lastSeenTimestamp: date,
          lastProcessedTimestamp: date,
          lastHeartbeatTimestamp: date,
        });
        const found = await store.findByStreamName(`date-${index}`);
        for (const field of ['lastSeenTimestamp', 'lastProcessedTimestamp', 'lastHeartbeatTimestamp'] as const) {
          expect(found?.[field]?.toISOString(), `${field} of ${date.toISOString()}`).toBe(date.toISOString());
        }
      }
    });

    test('hands out copies: changing a record read back, or a value passed in, never changes the store', async (store) => {
      const token = { position: 'p-1', list: [1, 2] };
      const timestamp = new Date(seenAt);
      const metadata = { owner: 'kit', nested: { n: 1 } };
      await store.save({ ...emptyRecord('orders'), lastSeenToken: token, lastSeenTimestamp: timestamp, metadata });
      token.list.push(3);
      timestamp.setTime(0);
      metadata.nested.n = 2;
      const first = await store.findByStreamName('orders');
      expect(first?.lastSeenToken).toEqual({ position: 'p-1', list: [1, 2] });
      expect(first?.lastSeenTimestamp).toEqual(seenAt);
      expect(first?.metadata).toEqual({ owner: 'kit', nested: { n: 1 } });
      (first?.lastSeenToken as { list: number[] }).list.push(4);
      first?.lastSeenTimestamp?.setTime(1);
      (first?.metadata as { owner: string }).owner = 'changed';
      expect(await store.findByStreamName('orders')).toEqual({
        ...emptyRecord('orders'),
        lastSeenToken: { position: 'p-1', list: [1, 2] },
        lastSeenTimestamp: seenAt,
        metadata: { owner: 'kit', nested: { n: 1 } },
      });
    });
  });
}

/** Every pattern of null fields round-trips, and a partial write keeps the nulls it does not own. */
export function describeNullPatterns(describe: SuiteRegistrar, test: CaseRegistrar): void {
  describe('null patterns', () => {
    test('round-trips every combination of null and set tokens and timestamps', async (store) => {
      const fields = [
        'lastSeenToken',
        'lastSeenTimestamp',
        'lastProcessedToken',
        'lastProcessedTimestamp',
        'lastHeartbeatTimestamp',
      ] as const;
      const records: DualAnchorCheckpoint[] = [];
      for (let mask = 0; mask < 2 ** fields.length; mask += 1) {
        const record: Record<string, unknown> = { ...fullRecord(`pattern-${mask}`) };
        for (const [bit, field] of fields.entries()) {
          if ((mask & (1 << bit)) !== 0) {
            record[field] = null;
          }
        }
        records.push(record as unknown as DualAnchorCheckpoint);
      }
      for (const record of records) {
        await store.save(record);
      }
      for (const record of records) {
        expect(await store.findByStreamName(record.streamName), record.streamName).toEqual(record);
      }
    });

    test('instanceId may be null or left out, and reads back as null', async (store) => {
      const { instanceId, ...withoutInstance } = fullRecord('left-out');
      expect(instanceId).toBe('instance-a');
      await store.save(withoutInstance);
      await store.save({ ...fullRecord('null'), instanceId: null });
      expect(await store.findByStreamName('left-out')).toEqual({ ...fullRecord('left-out'), instanceId: null });
      expect(await store.findByStreamName('null')).toEqual({ ...fullRecord('null'), instanceId: null });
    });

    test('a record whose every field is null is still a stored record', async (store) => {
      await store.save(emptyRecord('orders'));
      expect(await store.findByStreamName('orders')).toEqual(emptyRecord('orders'));
    });

    test('a partial write keeps the nulls of the fields it does not own', async (store) => {
      await store.save({ ...emptyRecord('orders'), metadata: { kept: true } });
      await store.saveProcessed('orders', processedToken, processedAt, heartbeatAt);
      expect(await store.findByStreamName('orders')).toEqual({
        ...emptyRecord('orders'),
        metadata: { kept: true },
        lastProcessedToken: processedToken,
        lastProcessedTimestamp: processedAt,
        lastHeartbeatTimestamp: heartbeatAt,
      });
    });
  });
}
