import { describe, expect, it } from 'vitest';
import { CheckpointWriteCondition, formatWriteCondition, isCheckpointWriteCondition } from '../../runtime/index.js';

describe('CheckpointWriteCondition', () => {
  it('builds the three conditions, discriminated on kind', () => {
    expect(CheckpointWriteCondition.any().kind).toBe('any');
    expect(CheckpointWriteCondition.ifAbsent().kind).toBe('ifAbsent');
    const fence = CheckpointWriteCondition.notOlderThan(7);
    expect(fence.kind).toBe('notOlderThan');
    expect(fence.version).toBe(7n);
  });

  it.each([
    [CheckpointWriteCondition.any(), 'any()'],
    [CheckpointWriteCondition.ifAbsent(), 'ifAbsent()'],
    [CheckpointWriteCondition.notOlderThan(7), 'notOlderThan(7)'],
    [CheckpointWriteCondition.notOlderThan(7n), 'notOlderThan(7)'],
    [CheckpointWriteCondition.notOlderThan(0), 'notOlderThan(0)'],
    [CheckpointWriteCondition.notOlderThan(2n ** 64n), 'notOlderThan(18446744073709551616)'],
  ])('String(%o) reads %s', (condition, text) => {
    expect(String(condition)).toBe(text);
    expect(formatWriteCondition(condition)).toBe(text);
  });

  it('accepts the largest safe integer and keeps it exact', () => {
    expect(CheckpointWriteCondition.notOlderThan(Number.MAX_SAFE_INTEGER).version).toBe(2n ** 53n - 1n);
  });

  it.each([
    ['a negative number', -1],
    ['a negative bigint', -1n],
    ['NaN', Number.NaN],
    ['a fraction', 1.5],
    ['2**53, beyond the safe integers', 2 ** 53],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['-Infinity', Number.NEGATIVE_INFINITY],
    ['-0.5', -0.5],
    ['a numeric string', '7'],
    ['undefined', undefined],
    ['null', null],
  ])('notOlderThan refuses %s with a RangeError', (_label, version) => {
    expect(() => CheckpointWriteCondition.notOlderThan(version as never)).toThrow(RangeError);
  });

  it('names the bad version and the fix in the RangeError', () => {
    expect(() => CheckpointWriteCondition.notOlderThan(1.5)).toThrow(
      'notOlderThan(1.5): a number version must be a non-negative safe integer (0 to 9007199254740991); pass a bigint for larger versions.',
    );
  });

  it('hands out frozen conditions that cannot be tampered with', () => {
    const fence = CheckpointWriteCondition.notOlderThan(3);
    expect(Object.isFrozen(fence)).toBe(true);
    expect(Object.isFrozen(CheckpointWriteCondition.any())).toBe(true);
    expect(Object.isFrozen(CheckpointWriteCondition)).toBe(true);
  });

  it('formats a plain object literal condition the same way', () => {
    expect(formatWriteCondition({ kind: 'notOlderThan', version: 12n })).toBe('notOlderThan(12)');
    expect(formatWriteCondition({ kind: 'ifAbsent' })).toBe('ifAbsent()');
  });

  it.each([
    [CheckpointWriteCondition.any(), true],
    [{ kind: 'notOlderThan', version: 0n }, true],
    [{ kind: 'ifAbsent' }, true],
    [{ kind: 'notOlderThan', version: 7 }, false],
    [{ kind: 'notOlderThan', version: -1n }, false],
    [{ kind: 'notOlderThan' }, false],
    [{ kind: 'sometimes' }, false],
    ['any()', false],
    [null, false],
    [undefined, false],
  ])('isCheckpointWriteCondition(%o) is %s', (value, expected) => {
    expect(isCheckpointWriteCondition(value)).toBe(expected);
  });
});
