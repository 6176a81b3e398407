import { CheckpointWriteCondition, type CheckpointStorage } from '../../../runtime/index.js';

/** One call a typed caller cannot write but an untyped one can; it must be refused with a TypeError before anything is written. */
export interface BadStorageCall {
  readonly label: string;
  /** The method called; a row for an optional method the storage lacks does not apply to it. */
  readonly method: keyof CheckpointStorage;
  readonly call: (storage: CheckpointStorage) => unknown;
}

/** Deliberately defeats the type checker: these calls model untyped JavaScript callers. */
function untyped(value: unknown): never {
  return value as never;
}

const badIds: readonly (readonly [string, unknown])[] = [
  ['a number id', 42],
  ['a bigint id', 42n],
  ['an undefined id', undefined],
  ['a null id', null],
  ['an object id', { id: 'orders' }],
  ['an array id', ['orders']],
  ['a String object id', new String('orders')],
  // Not well-formed UTF-16: Redis would store both as U+FFFD, so 'a\uD800' and 'a\uDC00' would share a checkpoint.
  ['an id with a lone high surrogate', 'a\uD800'],
  ['an id with a lone low surrogate', '\uDC00{t}orders'],
];

const badCheckpoints: readonly (readonly [string, unknown])[] = [
  ['a number checkpoint', 42],
  ['a null checkpoint', null],
  ['an undefined checkpoint', undefined],
  ['an object checkpoint', { position: 1 }],
  ['a Buffer checkpoint', Buffer.from('offset-1')],
  ['a checkpoint with a lone surrogate', 'offset-\uDBFF'],
];

/** Hand-built condition objects: the factories refuse these values, a caller bypassing them must be refused too. */
const badConditions: readonly (readonly [string, unknown])[] = [
  ['no condition (the pre-fencing two-argument call)', undefined],
  ['a null condition', null],
  ['a string condition', 'any()'],
  ['an unknown condition kind', { kind: 'always' }],
  ['a condition object with no kind', {}],
  ['notOlderThan(-1)', { kind: 'notOlderThan', version: -1 }],
  ['notOlderThan(-1n)', { kind: 'notOlderThan', version: -1n }],
  ['notOlderThan(1.5)', { kind: 'notOlderThan', version: 1.5 }],
  ['notOlderThan(NaN)', { kind: 'notOlderThan', version: Number.NaN }],
  ['notOlderThan(2**53)', { kind: 'notOlderThan', version: 2 ** 53 }],
  ["notOlderThan('7')", { kind: 'notOlderThan', version: '7' }],
  ['notOlderThan(7) as a number, which a storage must not coerce', { kind: 'notOlderThan', version: 7 }],
  ['notOlderThan without a version', { kind: 'notOlderThan' }],
];

/** Versions `CheckpointWriteCondition.notOlderThan` refuses with a RangeError, so no condition is ever built from them. */
export const badFactoryVersions: readonly unknown[] = [
  -1,
  1.5,
  Number.NaN,
  2 ** 53,
  '7',
  -1n,
  Number.POSITIVE_INFINITY,
];

/** Every public method of the storage contract with every bad argument it can be given. */
export const badStorageCalls: readonly BadStorageCall[] = [
  ...badIds.flatMap(([label, id]): BadStorageCall[] => [
    { method: 'read', label: `read with ${label}`, call: (s) => s.read(untyped(id)) },
    { method: 'writeVersion', label: `writeVersion with ${label}`, call: (s) => s.writeVersion(untyped(id)) },
    { method: 'delete', label: `delete with ${label}`, call: (s) => s.delete(untyped(id)) },
    {
      method: 'save',
      label: `save any() with ${label}`,
      call: (s) => s.save(untyped(id), 'cp', CheckpointWriteCondition.any()),
    },
    {
      method: 'save',
      label: `save notOlderThan(9) with ${label}`,
      call: (s) => s.save(untyped(id), 'cp', CheckpointWriteCondition.notOlderThan(9)),
    },
    {
      method: 'save',
      label: `save ifAbsent() with ${label}`,
      call: (s) => s.save(untyped(id), 'cp', CheckpointWriteCondition.ifAbsent()),
    },
    {
      method: 'evaluatesWriteConditionsFor',
      label: `evaluatesWriteConditionsFor with ${label}`,
      call: (s) => s.evaluatesWriteConditionsFor?.(untyped(id)),
    },
    {
      method: 'resolveFirstCheckpointRace',
      label: `resolveFirstCheckpointRace with ${label}`,
      call: (s) => s.resolveFirstCheckpointRace?.(untyped(id), 'cp'),
    },
  ]),
  ...badCheckpoints.flatMap(([label, checkpoint]): BadStorageCall[] => [
    {
      method: 'save',
      label: `save any() with ${label}`,
      call: (s) => s.save('victim', untyped(checkpoint), CheckpointWriteCondition.any()),
    },
    {
      method: 'save',
      label: `save notOlderThan(9) with ${label}`,
      call: (s) => s.save('victim', untyped(checkpoint), CheckpointWriteCondition.notOlderThan(9)),
    },
    {
      method: 'resolveFirstCheckpointRace',
      label: `resolveFirstCheckpointRace with ${label}`,
      call: (s) => s.resolveFirstCheckpointRace?.('victim', untyped(checkpoint)),
    },
  ]),
  ...badConditions.map(([label, condition]): BadStorageCall => ({
    method: 'save',
    label: `save with ${label}`,
    call: (s) => s.save('victim', 'overwritten', untyped(condition)),
  })),
];
