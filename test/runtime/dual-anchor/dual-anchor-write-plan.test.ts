import { describe, expect, it } from 'vitest';
import { CheckpointWriteCondition } from '../../../runtime/index.js';
import {
  DualAnchorWritePlan,
  storedFieldsAfterReset,
  emptyStoredDualAnchorFields,
} from '../../../runtime/dual-anchor-entry.js';

const at = new Date('2024-05-01T10:00:00.123Z');

describe('DualAnchorWritePlan', () => {
  it('turns a partial write into its own fields in stored form, and only those', () => {
    expect(DualAnchorWritePlan.saveProcessed('orders', { b: 1, a: 2 }, at, new Date(0), undefined)).toEqual({
      streamName: 'orders',
      fields: { lastProcessedToken: '{"a":2,"b":1}', lastProcessedTimestamp: at.getTime(), lastHeartbeatTimestamp: 0 },
      condition: CheckpointWriteCondition.any(),
    });
    expect(DualAnchorWritePlan.saveSeen('orders', 'seen', at, undefined, undefined).fields).toEqual({
      lastSeenToken: '"seen"',
      lastSeenTimestamp: at.getTime(),
    });
  });

  it('a reset without a fresh token plans null for the seen pair and the heartbeat', () => {
    const reset = DualAnchorWritePlan.resetAfterHistoryLost('orders', null, { dead: true }, at, undefined);
    expect(reset.fields).toEqual({ lastSeenToken: null, lastSeenTimestamp: null, lastHeartbeatTimestamp: null });
    expect(reset.expectedDeadProcessed).toBe('{"dead":true}');
    const stored = { ...emptyStoredDualAnchorFields, lastProcessedToken: '{"dead":true}', lastProcessedTimestamp: 5 };
    expect(storedFieldsAfterReset(stored, reset)).toEqual(emptyStoredDualAnchorFields);
  });

  it("reads a condition's kind and version once and hands on a frozen copy", () => {
    const reads: string[] = [];
    const condition = {
      get kind() {
        reads.push('kind');
        return 'notOlderThan';
      },
      get version() {
        reads.push('version');
        return 7n;
      },
    };
    const write = DualAnchorWritePlan.saveHeartbeat('orders', at, condition);
    expect(reads).toEqual(['kind', 'version']);
    expect(String(write.condition)).toBe('notOlderThan(7)');
    expect(Object.isFrozen(write.condition)).toBe(true);
    expect(write.condition).not.toBe(condition);
  });

  for (const [label, call, message] of [
    [
      'an empty stream name',
      () => DualAnchorWritePlan.saveHeartbeat('', at, undefined),
      'streamName must be a non-empty string, got "".',
    ],
    [
      'a lone surrogate in a stream name',
      () => DualAnchorWritePlan.saveHeartbeat('a\uDC00', at, undefined),
      'streamName "a\\udc00" is not well-formed UTF-16: it holds a lone surrogate, which would be stored as U+FFFD, so two different values could collide. Pass a well-formed string (streamName.toWellFormed() replaces lone surrogates).',
    ],
    [
      'a null anchor token',
      () => DualAnchorWritePlan.saveSeen('orders', null, at, undefined, undefined),
      'saveSeen needs a token, got null: null means "no anchor". To clear anchors, use resetAfterHistoryLost or save the whole record.',
    ],
    [
      'a string timestamp',
      () => DualAnchorWritePlan.saveProcessed('orders', 1, '2024-05-01', undefined, undefined),
      'timestamp must be a Date, got "2024-05-01". Wrap it: new Date("2024-05-01").',
    ],
    [
      'a date in year 10000',
      () => DualAnchorWritePlan.saveHeartbeat('orders', new Date('+010000-01-01T00:00:00.000Z'), undefined),
      'heartbeatTimestamp must be a Date in years 1 to 9999, got +010000-01-01T00:00:00.000Z: stores keep timestamps that every backend can hold.',
    ],
    [
      'a null heartbeat',
      () => DualAnchorWritePlan.saveSeen('orders', 1, at, null, undefined),
      'heartbeatTimestamp must be a Date or left out (undefined), got null. Leave it out to keep the stored heartbeat.',
    ],
    [
      'an undefined expected token',
      () => DualAnchorWritePlan.resetAfterHistoryLost('orders', null, undefined, at, undefined),
      'expectedDeadProcessed must be a JSON value or null, got undefined. Pass null for "no token".',
    ],
    [
      'a number-version condition',
      () => DualAnchorWritePlan.saveHeartbeat('orders', at, { kind: 'notOlderThan', version: 7 }),
      'condition must be a CheckpointWriteCondition or left out, got {"kind":"notOlderThan","version":7}. Build one with CheckpointWriteCondition.any(), .notOlderThan(token) or .ifAbsent().',
    ],
    [
      'metadata that is an array',
      () =>
        DualAnchorWritePlan.save(
          {
            streamName: 'orders',
            lastSeenToken: null,
            lastSeenTimestamp: null,
            lastProcessedToken: null,
            lastProcessedTimestamp: null,
            lastHeartbeatTimestamp: null,
            metadata: [],
          },
          undefined,
        ),
      'checkpoint.metadata must be a plain object of JSON values, got []. Pass {} for none.',
    ],
  ] as const) {
    it(`rejects ${label} with a TypeError that says what to pass`, () => {
      expect(call).toThrow(new TypeError(message));
    });
  }
});
