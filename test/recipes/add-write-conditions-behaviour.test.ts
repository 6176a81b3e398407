import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CheckpointStorage } from '../../runtime/index.js';
import { describeCheckpointStorageConformance } from '../../runtime/testing/index.js';
import { upgrade } from '../../recipes/index.js';
import { copyLegacyApp, makeTempProject, RECIPE_FIXTURES } from './support/fixture-project.js';
import { runnableCopy } from './support/runnable-copy.js';
import { expectEveryWriteRefused, expectSameBehaviour } from './support/storage-behaviour.js';

type Module = Record<string, unknown>;

/** Imports `<case>/<file>` of the before/after fixtures (the fixture test proves the recipe writes exactly the outputs). */
async function load(name: string, file: string): Promise<Module> {
  return (await import(join(runnableCopy(join(RECIPE_FIXTURES, name)), file))) as Module;
}

function construct(module: Module, exportName: string, ...args: unknown[]): object {
  const constructor = module[exportName] as new (...parameters: unknown[]) => object;
  return new constructor(...args);
}

/** An in-memory stand-in for the event store client of the object-literal-typed-factory case. */
function metadataClient(): unknown {
  const metadata = new Map<string, { checkpoint?: string }>();
  return {
    getStreamMetadata: (stream: string) => Promise.resolve(metadata.get(stream)),
    setStreamMetadata: (stream: string, value: { checkpoint?: string }) => {
      metadata.set(stream, value);
      return Promise.resolve();
    },
  };
}

/** An in-memory stand-in for the document database of the constructor-assigned cases. */
function documentDb(): unknown {
  const documents = new Map<string, string>();
  return {
    get: (key: string) => Promise.resolve(documents.get(key)),
    put: (key: string, value: string) => Promise.resolve(void documents.set(key, value)),
    remove: (key: string) => Promise.resolve(void documents.delete(key)),
  };
}

/** Every upgraded shape, with how to get a fresh storage out of its before and after module. */
const shapes: readonly (readonly [string, string, (module: Module) => object | Promise<object>])[] = [
  ['delegating-method', 'delegating method', (module) => construct(module, 'MapCheckpointStorage')],
  ['delegating-arrow-property', 'arrow-function field', (module) => construct(module, 'FileCheckpointStorage')],
  [
    'bound-arrow-entity-style',
    'bound arrow field, 4 spaces, no semicolons',
    (module) => construct(module, 'ProjectionCheckpointStore'),
  ],
  ['processor-id-parameters', 'processorId parameters', (module) => construct(module, 'ProcessorCheckpointStore')],
  ['aliased-import', 'aliased import', (module) => construct(module, 'AliasedStorage')],
  ['namespace-import', 'namespace import', (module) => construct(module, 'NamespacedStorage')],
  [
    'generic-class',
    'generic class',
    (module) => construct(module, 'BackendCheckpointStorage', new Map<string, string>()),
  ],
  ['only-save-missing', 'only save missing', (module) => construct(module, 'VersionedButUnfencedStorage')],
  ['inherited', 'inherited', (module) => construct(module, 'TableCheckpointStorage')],
  ['abstract-base', 'abstract base, subclass without save', (module) => construct(module, 'OrdersCheckpointStorage')],
  [
    'abstract-save-subclasses',
    'abstract save, follows-base subclass',
    (module) => construct(module, 'HttpCheckpointStorage'),
  ],
  [
    'abstract-save-subclasses',
    'abstract save, follows-base subclass calling super.save',
    (module) => construct(module, 'AuditedHttpCheckpointStorage'),
  ],
  [
    'constructor-assigned-arrow',
    'arrow assigned in the constructor',
    (module) => construct(module, 'EventStoreCheckpoints', documentDb()),
  ],
  [
    'constructor-assigned-function',
    'function expression assigned in the constructor',
    (module) => construct(module, 'LedgerCheckpoints'),
  ],
  [
    'constructor-assigned-undeclared',
    'arrow assigned in the constructor, no field declared',
    (module) => construct(module, 'KvCheckpoints', documentDb()),
  ],
  [
    'constructor-assigned-javascript',
    'JavaScript class, arrow assigned in the constructor',
    (module) => construct(module, 'JobCheckpoints', documentDb()),
  ],
  ['constructor-bound-method', 'method bound in the constructor', (module) => construct(module, 'JournalCheckpoints')],
  ['field-bound-method', 'method bound in a field initialiser', (module) => construct(module, 'OffsetCheckpoints')],
  ['object-literal-typed', 'typed object literal', (module) => module['rowStorage'] as object],
  ['one-line-bodies', 'object literal with one-line bodies', (module) => module['compactStorage'] as object],
  ['object-literal-satisfies', 'object literal with satisfies', (module) => module['cellStorage'] as object],
  [
    'object-literal-factory',
    'object literal from an async factory',
    (module) => (module['connectKeyValueStorage'] as (prefix: string) => Promise<object>)('cp:'),
  ],
  [
    'object-literal-typed-factory',
    'object literal from a typed factory',
    (module) => (module['createMetadataCheckpointStorage'] as (client: unknown) => object)(metadataClient()),
  ],
];

describe('an upgraded storage behaves as before, attached and detached, and refuses every condition but any()', () => {
  for (const [name, label, make] of shapes) {
    it(`${name}: ${label}`, async () => {
      // Module state (a factory's map, a literal's cells) is shared, so each storage is made from a fresh import.
      const fresh = async (file: string): Promise<object> => make(await load(name, file));
      const extension = readdirSync(join(RECIPE_FIXTURES, name)).includes('input.js') ? 'js' : 'ts';
      await expectSameBehaviour(
        () => fresh(`input.${extension}`),
        () => fresh(`output.${extension}`),
      );
    });
  }

  it('refusing shape: every write, any() included, is refused without recursing, attached and detached', async () => {
    const storage = construct(
      await load('refusing', 'output.ts'),
      'SnapshotCheckpointStorage',
      new Map([['orders', '9']]),
    );
    // A generated save that called itself would fail with RangeError (stack overflow), not this.
    await expectEveryWriteRefused(storage);
    expect(await (storage as CheckpointStorage).read('orders')).toBe('9');
    expect(await (storage as CheckpointStorage).writeVersion('orders')).toBeUndefined();
  });
});

/**
 * Like {@link load}, with the file's decorators lowered by TypeScript first: the test runner's transform leaves
 * standard decorators as they are, and Node 20 cannot parse them.
 */
async function loadLoweringDecorators(name: string, file: string): Promise<Module> {
  const path = join(runnableCopy(join(RECIPE_FIXTURES, name)), file);
  const lowered = ts.transpileModule(readFileSync(path, 'utf8'), {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
  });
  writeFileSync(path, lowered.outputText);
  return (await import(path)) as Module;
}

describe('a decorated save after the upgrade', () => {
  it('behaves as before, attached and detached', async () => {
    const make = async (file: string): Promise<object> =>
      construct(await loadLoweringDecorators('decorated-save', file), 'TracedCheckpointStorage');
    await expectSameBehaviour(
      () => make('input.ts'),
      () => make('output.ts'),
    );
  });

  it('is still traced under the name save, once a write, as the decorator keys it (review 19)', async () => {
    const traces = async (file: string): Promise<string[]> => {
      const module = await loadLoweringDecorators('decorated-save', file);
      // The legacy two-argument call, which both the legacy and the upgraded save accept.
      const storage = construct(module, 'TracedCheckpointStorage') as {
        save(id: string, checkpoint: string): Promise<string>;
        read(id: string): Promise<string | undefined>;
      };
      await storage.save('orders', '1');
      await storage.read('orders');
      return module['traced'] as string[];
    };
    expect(await traces('input.ts')).toEqual(['save']);
    expect(await traces('output.ts')).toEqual(['save']);
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
