import { describe as vitestDescribe, expect, it as vitestIt } from 'vitest';
import { CheckpointWriteCondition } from '../checkpoint-write-condition.js';
import type { DualAnchorCheckpoint, DualAnchorCheckpointStore, DualAnchorToken } from '../dual-anchor/index.js';
import { CheckpointWriteConditionNotFulfilledError } from '../errors/checkpoint-write-condition-not-fulfilled-error.js';
import { UnsupportedWriteConditionError } from '../errors/unsupported-write-condition-error.js';
import { expectRefused } from './expect-refused.js';
import { shuffled } from './shuffled.js';
import { untyped } from './untyped.js';

const { any, notOlderThan, ifAbsent } = CheckpointWriteCondition;

/** The suite-registration functions and knobs of {@link describeDualAnchorCheckpointStoreConformance}. */
export interface DualAnchorConformanceOptions {
  readonly describe?: (name: string, body: () => void) => void;
  readonly it?: (name: string, body: () => Promise<void>, timeoutMs?: number) => void;
  /** Called after every case with the store the factory made: close connections, drop keys. */
  readonly teardown?: (store: DualAnchorCheckpointStore) => void | Promise<void>;
  /**
   * False for a store that deliberately persists nothing, such as `noOpDualAnchorCheckpointStore()`: the kit then
   * checks that every valid write resolves, that nothing is ever found, that bad input is still a `TypeError`, and
   * that conditions other than `any()` are refused; the cases that read back what was written are left out. True by
   * default.
   */
  readonly persists?: boolean;
  /** Writes per anchor writer in the concurrent-writers case; 1,000 by default. */
  readonly interleavedWrites?: number;
}

/** Makes a fresh, empty store for one case. */
export type DualAnchorCheckpointStoreFactory = () => DualAnchorCheckpointStore | Promise<DualAnchorCheckpointStore>;

type Condition = CheckpointWriteCondition | undefined;

/** One write of the contract, with the fields it sets on a stream; the kit runs each through the same cases. */
interface PartialWrite {
  readonly label: string;
  readonly write: (store: DualAnchorCheckpointStore, streamName: string, condition?: Condition) => Promise<void>;
  readonly sets: Partial<DualAnchorCheckpoint>;
}

const seenToken: DualAnchorToken = { position: 'seen-7', shard: { id: 3, replicas: ['a', 'b'] } };
const processedToken: DualAnchorToken = { position: 'processed-5' };
const freshToken: DualAnchorToken = { position: 'fresh-1', epoch: 2 };
const deadToken: DualAnchorToken = { position: 'expired-2', shard: { a: 1, b: [true, null] } };
const seenAt = new Date('2024-05-01T10:00:00.123Z');
const processedAt = new Date('2024-05-01T09:59:58.007Z');
const heartbeatAt = new Date('2024-05-01T10:00:01.999Z');
const resetAt = new Date('2024-05-02T00:00:00.001Z');
const sequenceBase = Date.UTC(2024, 0, 1);

/** Every partial operation, with and without a heartbeat, and both kinds of reset. */
const partialWrites: readonly PartialWrite[] = [
  {
    label: 'saveSeen',
    write: (store, name, condition) => store.saveSeen(name, seenToken, seenAt, undefined, condition),
    sets: { lastSeenToken: seenToken, lastSeenTimestamp: seenAt },
  },
  {
    label: 'saveSeen with a heartbeat',
    write: (store, name, condition) => store.saveSeen(name, seenToken, seenAt, heartbeatAt, condition),
    sets: { lastSeenToken: seenToken, lastSeenTimestamp: seenAt, lastHeartbeatTimestamp: heartbeatAt },
  },
  {
    label: 'saveProcessed',
    write: (store, name, condition) => store.saveProcessed(name, processedToken, processedAt, undefined, condition),
    sets: { lastProcessedToken: processedToken, lastProcessedTimestamp: processedAt },
  },
  {
    label: 'saveProcessed with a heartbeat',
    write: (store, name, condition) => store.saveProcessed(name, processedToken, processedAt, heartbeatAt, condition),
    sets: {
      lastProcessedToken: processedToken,
      lastProcessedTimestamp: processedAt,
      lastHeartbeatTimestamp: heartbeatAt,
    },
  },
  {
    label: 'saveHeartbeat',
    write: (store, name, condition) => store.saveHeartbeat(name, heartbeatAt, condition),
    sets: { lastHeartbeatTimestamp: heartbeatAt },
  },
  {
    label: 'resetAfterHistoryLost with a fresh token',
    write: (store, name, condition) => store.resetAfterHistoryLost(name, freshToken, deadToken, resetAt, condition),
    sets: { lastSeenToken: freshToken, lastSeenTimestamp: resetAt, lastHeartbeatTimestamp: resetAt },
  },
  {
    label: 'resetAfterHistoryLost without a fresh token',
    write: (store, name, condition) => store.resetAfterHistoryLost(name, null, deadToken, resetAt, condition),
    sets: { lastSeenToken: null, lastSeenTimestamp: null, lastHeartbeatTimestamp: null },
  },
];

/** `save` of a whole record, for the cases every write goes through. */
const wholeRecordWrite: PartialWrite = {
  label: 'save',
  write: (store, name, condition) => store.save(fullRecord(name), condition),
  sets: {},
};

/**
 * Registers a suite that checks a `DualAnchorCheckpointStore` against the contract: upsert, find and delete; every
 * partial write persisting on a brand-new stream; field isolation; two concurrent anchor writers that must never bring
 * back a stale value of the other anchor; an anchor and its heartbeat landing together; every branch of
 * `resetAfterHistoryLost`, a processed anchor re-acquired concurrently included; every null pattern; bad input; and
 * fencing, or the refusal of every condition but `any()` for a store that answers `evaluatesWriteConditions()` false.
 * Each trap the reference names fails a case here; doc/dual-anchor.md lists which.
 */
export function describeDualAnchorCheckpointStoreConformance(
  name: string,
  factory: DualAnchorCheckpointStoreFactory,
  options: DualAnchorConformanceOptions = {},
): void {
  const describe = options.describe ?? vitestDescribe;
  const it = options.it ?? vitestIt;
  const interleavedWrites = options.interleavedWrites ?? 1_000;

  const test = (title: string, body: (store: DualAnchorCheckpointStore) => Promise<void>, timeoutMs?: number): void => {
    it(
      title,
      async () => {
        const store = await factory();
        try {
          await body(store);
        } finally {
          await options.teardown?.(store);
        }
      },
      timeoutMs,
    );
  };

  describe(`${name}: DualAnchorCheckpointStore conformance`, () => {
    if (options.persists === false) {
      describePersistingNothing(test);
    } else {
      describeRoundTrips(test);
      describeBrandNewStreams(test);
      describeFieldIsolation(test);
      describeConcurrentAnchorWriters(test, interleavedWrites);
      describeAnchorWithHeartbeat(test);
      describeResetAfterHistoryLost(test);
      describeNullPatterns(test);
      describeFencing(test);
    }
    describeBadInput(test, options.persists !== false);
  });

  function describePersistingNothing(test: CaseRegistrar): void {
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

  function describeRoundTrips(test: CaseRegistrar): void {
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

  function describeBrandNewStreams(test: CaseRegistrar): void {
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

  function describeFieldIsolation(test: CaseRegistrar): void {
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

  function describeConcurrentAnchorWriters(test: CaseRegistrar, writes: number): void {
    describe('concurrent anchor writers', () => {
      test(`two writers, ${writes} interleaved saveSeen and saveProcessed each, never bring back a stale value of the other anchor`, async (store) => {
        const acknowledged = { seen: -1, processed: -1 };
        const violations: string[] = [];
        const check = (record: DualAnchorCheckpoint | undefined, floor: typeof acknowledged, when: string): void => {
          for (const anchor of ['seen', 'processed'] as const) {
            const { sequence, paired } = anchorSequence(record, anchor);
            if (sequence < floor[anchor]) {
              violations.push(
                `${when}: the ${anchor} anchor read ${sequence} after ${floor[anchor]} was acknowledged (a stale value brought back)`,
              );
            }
            if (!paired) {
              violations.push(`${when}: the ${anchor} token and timestamp do not belong together`);
            }
          }
        };
        const run = { active: true };
        const reader = (async () => {
          while (run.active) {
            const floor = { ...acknowledged };
            check(await store.findByStreamName('contended'), floor, 'a read during the writes');
            await new Promise<void>((resolve) => setImmediate(resolve));
          }
        })();
        const writer = async (anchor: 'seen' | 'processed'): Promise<void> => {
          for (let sequence = 0; sequence < writes; sequence += 1) {
            const token = { anchor, sequence };
            const at = new Date(sequenceBase + sequence);
            await (anchor === 'seen'
              ? store.saveSeen('contended', token, at)
              : store.saveProcessed('contended', token, at));
            acknowledged[anchor] = sequence;
          }
        };
        try {
          await Promise.all([writer('seen'), writer('processed')]);
        } finally {
          run.active = false;
          await reader;
        }
        check(await store.findByStreamName('contended'), acknowledged, 'the read after both writers finished');
        expect(violations.slice(0, 5)).toEqual([]);
        const final = await store.findByStreamName('contended');
        expect(final?.lastSeenToken).toEqual({ anchor: 'seen', sequence: writes - 1 });
        expect(final?.lastProcessedToken).toEqual({ anchor: 'processed', sequence: writes - 1 });
      }, 120_000);
    });
  }

  function describeAnchorWithHeartbeat(test: CaseRegistrar): void {
    describe('an anchor and its heartbeat land together', () => {
      for (const anchor of ['seen', 'processed'] as const) {
        test(`no reader ever sees a ${anchor} anchor without the heartbeat written with it`, async (store) => {
          const violations: string[] = [];
          const run = { active: true };
          const reader = async (): Promise<void> => {
            while (run.active) {
              const record = await store.findByStreamName('confirmed');
              const { sequence, paired } = anchorSequence(record, anchor);
              const heartbeat = record?.lastHeartbeatTimestamp?.getTime() ?? null;
              const expected = sequence === -1 ? null : sequenceBase + sequence;
              if (!paired || heartbeat !== expected) {
                violations.push(
                  `read ${anchor} anchor ${sequence} with heartbeat ${heartbeat === null ? 'null' : heartbeat - sequenceBase}`,
                );
              }
              await new Promise<void>((resolve) => setImmediate(resolve));
            }
          };
          const readers = [reader(), reader()];
          try {
            for (let sequence = 0; sequence < 200; sequence += 1) {
              const token = { anchor, sequence };
              const at = new Date(sequenceBase + sequence);
              await (anchor === 'seen'
                ? store.saveSeen('confirmed', token, at, at)
                : store.saveProcessed('confirmed', token, at, at));
            }
          } finally {
            run.active = false;
            await Promise.all(readers);
          }
          expect(violations.slice(0, 5)).toEqual([]);
          expect(await store.findByStreamName('confirmed')).toMatchObject({
            lastHeartbeatTimestamp: new Date(sequenceBase + 199),
          });
        }, 60_000);
      }
    });
  }

  function describeResetAfterHistoryLost(test: CaseRegistrar): void {
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
          expect(found?.lastProcessedToken, `round ${round}: every order of the two writes keeps it`).toEqual(
            reacquired,
          );
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

  function describeNullPatterns(test: CaseRegistrar): void {
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

  function describeFencing(test: CaseRegistrar): void {
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
      fencing(
        'notOlderThan on a brand-new stream is accepted by every write, and stores its version',
        async (store) => {
          for (const { label, write } of [wholeRecordWrite, ...partialWrites]) {
            const streamName = `fresh ${label}`;
            await write(store, streamName, notOlderThan(5));
            expect(await store.findByStreamName(streamName), label).toBeDefined();
            await expectRefused(store.saveHeartbeat(streamName, resetAt, notOlderThan(4)), streamName, 5n);
          }
        },
      );

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
          await expectRefused(
            store.resetAfterHistoryLost('orders', null, null, resetAt, notOlderThan(5)),
            'orders',
            6n,
          );
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
          await expectRefused(
            store.resetAfterHistoryLost('orders', null, deadToken, resetAt, ifAbsent()),
            'orders',
            3n,
          );
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

  function describeBadInput(test: CaseRegistrar, persists: boolean): void {
    describe('bad input gets a TypeError and writes nothing', () => {
      for (const [label, call] of badCalls) {
        test(`rejects ${label}`, async (store) => {
          await expect(call(store)).rejects.toThrow(TypeError);
          for (const streamName of ['victim', '42', 'undefined', 'null', '[object Object]']) {
            expect(await store.findByStreamName(streamName), streamName).toBeUndefined();
          }
        });
      }

      if (persists) {
        test('a rejected call leaves an existing record and its version unchanged', async (store) => {
          const fenced = store.evaluatesWriteConditions();
          await store.save(fullRecord('victim'), fenced ? notOlderThan(3) : any());
          for (const [label, call] of badCalls) {
            await expect(call(store), label).rejects.toThrow(TypeError);
          }
          expect(await store.findByStreamName('victim')).toEqual(fullRecord('victim'));
          if (fenced) {
            await expectRefused(store.saveHeartbeat('victim', heartbeatAt, notOlderThan(2)), 'victim', 3n);
          }
        });
      }
    });
  }
}

type CaseRegistrar = (
  title: string,
  body: (store: DualAnchorCheckpointStore) => Promise<void>,
  timeoutMs?: number,
) => void;

/** A record with every field set, metadata and instance id included. */
function fullRecord(streamName: string): DualAnchorCheckpoint {
  return {
    streamName,
    instanceId: 'instance-a',
    lastSeenToken: { position: 'seen-1', shard: { id: 3, replicas: ['a'] } },
    lastSeenTimestamp: new Date('2024-04-30T12:00:00.500Z'),
    lastProcessedToken: { position: 'processed-1' },
    lastProcessedTimestamp: new Date('2024-04-30T11:59:59.250Z'),
    lastHeartbeatTimestamp: new Date('2024-04-30T12:00:01.750Z'),
    metadata: { owner: 'kit', attempts: 3, tags: ['a', 'b'], nested: { ok: true, none: null } },
  };
}

/** What a store holds for a stream no write has given a value yet. */
function emptyRecord(streamName: string): DualAnchorCheckpoint {
  return {
    streamName,
    instanceId: null,
    lastSeenToken: null,
    lastSeenTimestamp: null,
    lastProcessedToken: null,
    lastProcessedTimestamp: null,
    lastHeartbeatTimestamp: null,
    metadata: {},
  };
}

/**
 * The sequence number of an anchor written by the concurrency cases (`-1` when none is stored), and whether its
 * timestamp is the one written with that token.
 */
function anchorSequence(
  record: DualAnchorCheckpoint | undefined,
  anchor: 'seen' | 'processed',
): { readonly sequence: number; readonly paired: boolean } {
  const token = anchor === 'seen' ? record?.lastSeenToken : record?.lastProcessedToken;
  const timestamp = anchor === 'seen' ? record?.lastSeenTimestamp : record?.lastProcessedTimestamp;
  if (token === undefined || token === null) {
    return { sequence: -1, paired: timestamp === undefined || timestamp === null };
  }
  const sequence = (token as { sequence?: unknown }).sequence;
  if (typeof sequence !== 'number') {
    return { sequence: -1, paired: false };
  }
  return { sequence, paired: timestamp?.getTime() === sequenceBase + sequence };
}

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

class NotJson {
  readonly position = 1;
}

function cyclic(): DualAnchorToken {
  const token: Record<string, unknown> = { position: 1 };
  token['self'] = token;
  return untyped(token);
}

function sparseArray(): unknown[] {
  const array: unknown[] = [1];
  array[2] = 3;
  return array;
}

const badTokens: readonly (readonly [string, () => unknown])[] = [
  ['an undefined token', () => undefined],
  ['a function token', () => () => 1],
  ['a bigint token', () => 12n],
  ['a NaN token', () => Number.NaN],
  ['an infinite number inside a token', () => ({ position: Number.POSITIVE_INFINITY })],
  ['a Date token', () => new Date(0)],
  ['a Map token', () => new Map([['position', 1]])],
  ['a class-instance token', () => new NotJson()],
  ['a cyclic token', cyclic],
  ['an array token with a hole', sparseArray],
  ['a token with an undefined property', () => ({ position: 1, extra: undefined })],
  ['a token with a symbol key', () => ({ position: 1, [Symbol('hidden')]: 2 })],
  ['a token with a symbol value', () => ({ position: Symbol('p') })],
];

const badTimestamps: readonly (readonly [string, () => unknown])[] = [
  ['an ISO string timestamp', () => '2024-05-01T10:00:00.000Z'],
  ['a number timestamp', () => 1_714_557_600_000],
  ['an invalid Date', () => new Date(Number.NaN)],
  ['a Date after year 9999', () => new Date('+010000-01-01T00:00:00.000Z')],
  ['a Date before year 1', () => new Date('0000-12-31T23:59:59.999Z')],
];

const badConditions: readonly (readonly [string, unknown])[] = [
  ['an unknown condition kind', { kind: 'always' }],
  ['notOlderThan with a number version', { kind: 'notOlderThan', version: 7 }],
  ['notOlderThan with a negative version', { kind: 'notOlderThan', version: -1n }],
  ['a string condition', 'any()'],
  ['a null condition', null],
];

const badStreamNames: readonly (readonly [string, unknown])[] = [
  ['a number stream name', 42],
  ['an undefined stream name', undefined],
  ['a null stream name', null],
  ['an empty stream name', ''],
  ['a stream name with a lone surrogate', 'victim\uD800'],
];

type BadCall = readonly [string, (store: DualAnchorCheckpointStore) => Promise<unknown>];

/** Every argument of every operation, wrong in every way the contract names; each call targets stream `victim`. */
const badCalls: readonly BadCall[] = [
  ...badStreamNames.flatMap(([label, streamName]): BadCall[] => [
    [`${label} to findByStreamName`, (s) => s.findByStreamName(untyped(streamName))],
    [`${label} to delete`, (s) => s.delete(untyped(streamName))],
    [`${label} to save`, (s) => s.save({ ...fullRecord('victim'), streamName: untyped(streamName) })],
    [`${label} to saveSeen`, (s) => s.saveSeen(untyped(streamName), seenToken, seenAt)],
    [
      `${label} to saveProcessed`,
      (s) => s.saveProcessed(untyped(streamName), processedToken, processedAt, heartbeatAt),
    ],
    [`${label} to saveHeartbeat`, (s) => s.saveHeartbeat(untyped(streamName), heartbeatAt)],
    [
      `${label} to resetAfterHistoryLost`,
      (s) => s.resetAfterHistoryLost(untyped(streamName), freshToken, null, resetAt),
    ],
  ]),
  ['a null checkpoint to save', (s) => s.save(untyped(null))],
  ['a string checkpoint to save', (s) => s.save(untyped('victim'))],
  ['a checkpoint without a streamName', (s) => s.save(untyped({ ...fullRecord('victim'), streamName: undefined }))],
  ['a number instanceId', (s) => s.save({ ...fullRecord('victim'), instanceId: untyped(42) })],
  ['an empty instanceId', (s) => s.save({ ...fullRecord('victim'), instanceId: '' })],
  ['a null metadata', (s) => s.save({ ...fullRecord('victim'), metadata: untyped(null) })],
  ['an array metadata', (s) => s.save({ ...fullRecord('victim'), metadata: untyped([1]) })],
  ['a Map metadata', (s) => s.save({ ...fullRecord('victim'), metadata: untyped(new Map()) })],
  ['metadata holding a Date', (s) => s.save({ ...fullRecord('victim'), metadata: { at: new Date(0) } })],
  ['metadata holding a function', (s) => s.save({ ...fullRecord('victim'), metadata: { run: () => 1 } })],
  [
    'a missing lastProcessedTimestamp',
    (s) => s.save({ ...fullRecord('victim'), lastProcessedTimestamp: untyped(undefined) }),
  ],
  ...badTokens.flatMap(([label, token]): BadCall[] => [
    [`${label} in save`, (s) => s.save({ ...fullRecord('victim'), lastSeenToken: untyped(token()) })],
    [`${label} to saveSeen`, (s) => s.saveSeen('victim', untyped(token()), seenAt, heartbeatAt)],
    [`${label} to saveProcessed`, (s) => s.saveProcessed('victim', untyped(token()), processedAt)],
    [`${label} as the fresh token`, (s) => s.resetAfterHistoryLost('victim', untyped(token()), null, resetAt)],
    [`${label} as the expected token`, (s) => s.resetAfterHistoryLost('victim', freshToken, untyped(token()), resetAt)],
  ]),
  ['a null token to saveSeen', (s) => s.saveSeen('victim', untyped(null), seenAt)],
  ['a null token to saveProcessed', (s) => s.saveProcessed('victim', untyped(null), processedAt, heartbeatAt)],
  ...badTimestamps.flatMap(([label, timestamp]): BadCall[] => [
    [`${label} in save`, (s) => s.save({ ...fullRecord('victim'), lastHeartbeatTimestamp: untyped(timestamp()) })],
    [`${label} to saveSeen`, (s) => s.saveSeen('victim', seenToken, untyped(timestamp()))],
    [`${label} as saveSeen's heartbeat`, (s) => s.saveSeen('victim', seenToken, seenAt, untyped(timestamp()))],
    [`${label} to saveProcessed`, (s) => s.saveProcessed('victim', processedToken, untyped(timestamp()), heartbeatAt)],
    [`${label} to saveHeartbeat`, (s) => s.saveHeartbeat('victim', untyped(timestamp()))],
    [
      `${label} to resetAfterHistoryLost`,
      (s) => s.resetAfterHistoryLost('victim', freshToken, null, untyped(timestamp())),
    ],
  ]),
  ['a missing timestamp to saveSeen', (s) => s.saveSeen('victim', seenToken, untyped(undefined))],
  ['a null heartbeat to saveProcessed', (s) => s.saveProcessed('victim', processedToken, processedAt, untyped(null))],
  [
    'a missing timestamp to resetAfterHistoryLost',
    (s) => s.resetAfterHistoryLost('victim', null, null, untyped(undefined)),
  ],
  ...badConditions.flatMap(([label, condition]): BadCall[] => [
    [`${label} to save`, (s) => s.save(fullRecord('victim'), untyped(condition))],
    [`${label} to saveSeen`, (s) => s.saveSeen('victim', seenToken, seenAt, undefined, untyped(condition))],
    [
      `${label} to saveProcessed`,
      (s) => s.saveProcessed('victim', processedToken, processedAt, heartbeatAt, untyped(condition)),
    ],
    [`${label} to saveHeartbeat`, (s) => s.saveHeartbeat('victim', heartbeatAt, untyped(condition))],
    [
      `${label} to resetAfterHistoryLost`,
      (s) => s.resetAfterHistoryLost('victim', freshToken, null, resetAt, untyped(condition)),
    ],
  ]),
];
