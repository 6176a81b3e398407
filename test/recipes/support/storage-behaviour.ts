import { expect } from 'vitest';
import { CheckpointWriteCondition, type CheckpointStorage } from '../../../runtime/index.js';

/** What one call did: the value it resolved to, or the class of what it threw or rejected with. */
export type Outcome = { readonly value: unknown } | { readonly error: string };

/** How a member is called: on the object, or taken off it first (`const f = storage.save; f(…)`), as callbacks are. */
export type Binding = 'attached' | 'detached';

type Member = 'read' | 'save' | 'delete';
type Step = readonly [Member, ...string[]];

/** A small workload touching every member the pre-fencing interface had. */
const SCRIPT: readonly Step[] = [
  ['save', 'orders', '1'],
  ['save', 'orders', '2'],
  ['read', 'orders'],
  ['save', 'payments', 'p-1'],
  ['delete', 'payments'],
  ['read', 'payments'],
  ['save', 'payments', ''],
  ['read', 'payments'],
  ['read', 'orders'],
];

async function outcome(call: () => unknown): Promise<Outcome> {
  try {
    return { value: await call() };
  } catch (error) {
    return { error: error instanceof Error ? error.constructor.name : typeof error };
  }
}

function call(storage: object, member: Member, binding: Binding, args: readonly unknown[]): Promise<Outcome> {
  return outcome(() => {
    const method = (storage as Record<Member, unknown>)[member];
    if (typeof method !== 'function') {
      throw new TypeError(`${member} is not a function`);
    }
    return binding === 'attached'
      ? (method as (...parameters: unknown[]) => unknown).apply(storage, [...args])
      : (method as (...parameters: unknown[]) => unknown)(...args);
  });
}

/** The outcomes of {@link SCRIPT} on a fresh storage, `save` called with `extra` appended to its arguments. */
async function trace(storage: object, binding: Binding, extra: readonly unknown[]): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (const [member, ...args] of SCRIPT) {
    outcomes.push(await call(storage, member, binding, member === 'save' ? [...args, ...extra] : args));
  }
  return outcomes;
}

/**
 * The upgraded storage does what the legacy one did, attached and detached: the legacy two-argument calls give the
 * same values and the same errors, and so do `save(id, checkpoint, any())` calls; every other condition is refused
 * with `UnsupportedWriteConditionError` and writes nothing. Each comparison starts from fresh storages.
 */
export async function expectSameBehaviour(
  makeLegacy: () => object | Promise<object>,
  makeUpgraded: () => object | Promise<object>,
): Promise<void> {
  for (const binding of ['attached', 'detached'] as const) {
    const legacy = await trace(await makeLegacy(), binding, []);
    expect(await trace(await makeUpgraded(), binding, []), `two-argument calls, ${binding}`).toEqual(legacy);
    expect(await trace(await makeUpgraded(), binding, [CheckpointWriteCondition.any()]), `any(), ${binding}`).toEqual(
      legacy,
    );
  }
  await expectConditionsRefused(await makeUpgraded());
}

/** Every condition but `any()` is refused with `UnsupportedWriteConditionError`, and nothing is written. */
export async function expectConditionsRefused(storage: object): Promise<void> {
  await call(storage, 'save', 'attached', ['orders', 'before']);
  const before = await call(storage, 'read', 'attached', ['orders']);
  for (const condition of [CheckpointWriteCondition.notOlderThan(7), CheckpointWriteCondition.ifAbsent()]) {
    expect(await call(storage, 'save', 'attached', ['orders', 'fenced', condition])).toEqual({
      error: 'UnsupportedWriteConditionError',
    });
    const refused = await (storage as CheckpointStorage)
      .save('orders', 'fenced', condition)
      .catch((error: unknown) => error);
    expect((refused as Error).message).toBe(
      `This storage cannot evaluate ${String(condition)}, only any() is supported.`,
    );
  }
  expect(await call(storage, 'read', 'attached', ['orders'])).toEqual(before);
  expect(await (storage as CheckpointStorage).writeVersion('orders')).toBeUndefined();
}

/** A storage that had no `save`: now every write, `any()` included, is refused, attached and detached. */
export async function expectEveryWriteRefused(storage: object): Promise<void> {
  for (const binding of ['attached', 'detached'] as const) {
    for (const condition of [
      CheckpointWriteCondition.any(),
      CheckpointWriteCondition.notOlderThan(1),
      CheckpointWriteCondition.ifAbsent(),
    ]) {
      expect(await call(storage, 'save', binding, ['orders', '10', condition])).toEqual({
        error: 'UnsupportedWriteConditionError',
      });
    }
  }
}
