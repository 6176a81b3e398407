import { expect } from 'vitest';
import { CheckpointWriteCondition } from '../../index.js';
import type { DualAnchorCheckpointStore, DualAnchorToken } from '../../dual-anchor/index.js';
import { expectRefused } from '../expect-refused.js';
import { untyped } from '../untyped.js';
import {
  seenToken,
  processedToken,
  freshToken,
  seenAt,
  processedAt,
  heartbeatAt,
  resetAt,
  type SuiteRegistrar,
  type CaseRegistrar,
  fullRecord,
} from './fixtures.js';

const { any, notOlderThan } = CheckpointWriteCondition;

/** Bad input: every argument wrong in every way the contract names is a `TypeError` that writes nothing. */
export function describeBadInput(describe: SuiteRegistrar, test: CaseRegistrar, persists: boolean): void {
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
