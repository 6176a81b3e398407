import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  CheckpointWriteCondition,
  UnsupportedWriteConditionError,
  type CheckpointStorage,
} from '../../runtime/index.js';
import { describeCheckpointStorageConformance } from '../../runtime/testing/index.js';
import { upgrade } from '../../recipes/index.js';
import { copyLegacyApp, makeTempProject, RECIPE_FIXTURES } from './support/fixture-project.js';
import { runnableCopy } from './support/runnable-copy.js';

const { any, notOlderThan, ifAbsent } = CheckpointWriteCondition;

/** The pre-fencing shape the inputs were written against. */
interface LegacyStorage {
  read(subscriptionId: string): Promise<string | undefined>;
  save(subscriptionId: string, checkpoint: string): Promise<string>;
  delete(subscriptionId: string): Promise<void>;
}

type Module = Record<string, unknown>;

/** Imports `<case>/<file>` of the before/after fixtures (the fixture test proves the recipe writes exactly the outputs). */
async function load(name: string, file: string): Promise<Module> {
  return (await import(join(runnableCopy(join(RECIPE_FIXTURES, name)), file))) as Module;
}

function construct(module: Module, exportName: string, ...args: unknown[]): unknown {
  const constructor = module[exportName] as new (...parameters: unknown[]) => unknown;
  return new constructor(...args);
}

/** The same writes through the old two-argument save and the new save with any(): every result and read must match. */
async function expectSameAsLegacy(legacy: LegacyStorage, upgraded: CheckpointStorage): Promise<void> {
  const script: readonly (
    readonly ['save', string, string] | readonly ['delete', string] | readonly ['read', string]
  )[] = [
    ['save', 'orders', '1'],
    ['save', 'orders', '2'],
    ['save', 'payments', 'p-1'],
    ['read', 'orders'],
    ['delete', 'payments'],
    ['read', 'payments'],
    ['save', 'payments', ''],
    ['read', 'payments'],
  ];
  for (const step of script) {
    const [operation, id] = step;
    if (operation === 'save') {
      expect(await upgraded.save(id, step[2], any())).toEqual(await legacy.save(id, step[2]));
    } else if (operation === 'delete') {
      await upgraded.delete(id);
      await legacy.delete(id);
    }
    expect(await upgraded.read(id)).toEqual(await legacy.read(id));
  }
  expect(await upgraded.writeVersion('orders')).toBeUndefined();
}

/** Every condition but any() is refused with UnsupportedWriteConditionError and writes nothing. */
async function expectConditionsRefused(storage: CheckpointStorage): Promise<void> {
  const before = await storage.read('orders');
  for (const condition of [notOlderThan(7), ifAbsent()]) {
    const refusal = await storage.save('orders', 'fenced', condition).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(UnsupportedWriteConditionError);
    expect((refusal as Error).message).toBe(
      `This storage cannot evaluate ${String(condition)}, only any() is supported.`,
    );
  }
  expect(await storage.read('orders')).toBe(before);
}

const delegating: readonly (readonly [string, string])[] = [
  ['delegating-method', 'MapCheckpointStorage'],
  ['delegating-arrow-property', 'FileCheckpointStorage'],
  ['aliased-import', 'AliasedStorage'],
  ['namespace-import', 'NamespacedStorage'],
  ['generic-class', 'BackendCheckpointStorage'],
  ['only-save-missing', 'VersionedButUnfencedStorage'],
  ['inherited', 'TableCheckpointStorage'],
  ['abstract-base', 'OrdersCheckpointStorage'],
];

describe('an upgraded storage behaves as before for any(), and refuses every other condition', () => {
  for (const [name, exportName] of delegating) {
    it(`${name}: ${exportName}`, async () => {
      const args = name === 'generic-class' ? [new Map<string, string>()] : [];
      const legacy = construct(await load(name, 'input.ts'), exportName, ...args) as LegacyStorage;
      const upgraded = construct(
        await load(name, 'output.ts'),
        exportName,
        ...(name === 'generic-class' ? [new Map<string, string>()] : []),
      ) as CheckpointStorage;
      await expectSameAsLegacy(legacy, upgraded);
      await expectConditionsRefused(upgraded);
      // Callers that still pass two arguments (to the class, not the interface) keep working.
      expect(await (upgraded as unknown as LegacyStorage).save('orders', 'legacy-call')).toBe('legacy-call');
      expect(await upgraded.read('orders')).toBe('legacy-call');
    });
  }

  it('abstract base with an abstract save: each subclass writes once through its renamed save, without recursion', async () => {
    const module = await load('abstract-save-subclasses', 'output.ts');
    const http = construct(module, 'HttpCheckpointStorage') as CheckpointStorage & { sent: string[] };
    const audited = construct(module, 'AuditedHttpCheckpointStorage') as CheckpointStorage & {
      sent: string[];
      audit: string[];
    };
    expect(await http.save('orders', '5', any())).toBe('5');
    expect(http.sent).toEqual(['orders=5']);
    expect(await audited.save('orders', '6', any())).toBe('6');
    expect(audited.sent).toEqual(['orders=6']);
    expect(audited.audit).toEqual(['orders']);
    expect(await audited.read('orders')).toBe('6');
    await expectConditionsRefused(audited);
  });

  for (const [name, build] of [
    ['object-literal-typed', async () => (await load('object-literal-typed', 'output.ts'))['rowStorage']],
    ['object-literal-satisfies', async () => (await load('object-literal-satisfies', 'output.ts'))['cellStorage']],
    [
      'object-literal-factory',
      async () =>
        (
          (await load('object-literal-factory', 'output.ts'))['connectKeyValueStorage'] as (
            prefix: string,
          ) => Promise<unknown>
        )('cp:'),
    ],
  ] as const) {
    it(`${name}: the old write runs inline for any()`, async () => {
      const storage = (await build()) as CheckpointStorage;
      expect(await storage.save('orders', '3', any())).toBe('3');
      expect(await storage.read('orders')).toBe('3');
      expect(await storage.writeVersion('orders')).toBeUndefined();
      await expectConditionsRefused(storage);
    });
  }

  it('refusing shape: every write, any() included, is refused without recursing', async () => {
    const storage = construct(
      await load('refusing', 'output.ts'),
      'SnapshotCheckpointStorage',
      new Map([['orders', '9']]),
    ) as CheckpointStorage;
    for (const condition of [any(), notOlderThan(1), ifAbsent()]) {
      // A generated save that called itself would fail with RangeError (stack overflow), not this.
      await expect(storage.save('orders', '10', condition)).rejects.toThrow(UnsupportedWriteConditionError);
    }
    expect(await storage.read('orders')).toBe('9');
    expect(await storage.writeVersion('orders')).toBeUndefined();
  });
});

describe('the conformance kit passes for storages the recipe upgraded', () => {
  let upgradedMap: new () => CheckpointStorage;
  let upgradedTable: new () => CheckpointStorage;
  beforeAll(async () => {
    upgradedMap = (await load('delegating-method', 'output.ts'))['MapCheckpointStorage'] as new () => CheckpointStorage;
    upgradedTable = (await load('inherited', 'output.ts'))['TableCheckpointStorage'] as new () => CheckpointStorage;
  });
  describeCheckpointStorageConformance('delegating shape (MapCheckpointStorage)', () => new upgradedMap(), {
    validatesArguments: false,
  });
  describeCheckpointStorageConformance('inherited shape (TableCheckpointStorage)', () => new upgradedTable(), {
    validatesArguments: false,
  });
});

describe('the legacy app after the upgrade', () => {
  it('runs its consumer loop to the same checkpoints as before, through every storage', async () => {
    const project = makeTempProject('legacy-behaviour');
    copyLegacyApp(project);
    const before = runnableCopy(join(project, 'src'));
    await upgrade({ cwd: project });
    const after = runnableCopy(join(project, 'src'));
    const runOnce = async (src: string): Promise<unknown> => {
      const main = (await import(join(src, 'main.ts'))) as {
        runOnce: (log: (line: string) => void) => Promise<unknown>;
      };
      const lines: string[] = [];
      const result = await main.runOnce((line) => lines.push(line));
      return { result, lines };
    };
    const expected = await runOnce(before);
    expect(expected).toEqual({
      result: { memory: '3', postgres: '3', keyValue: '3' },
      lines: [
        'orders: lease acquired with fencing token 1',
        'orders: lease acquired with fencing token 1',
        'orders: lease acquired with fencing token 1',
      ],
    });
    expect(await runOnce(after)).toEqual(expected);
  }, 60_000);
});
