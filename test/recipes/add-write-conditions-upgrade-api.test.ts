import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { summaryLine, upgrade } from '../../recipes/index.js';
import { fixtureCompilerOptions, makeTempProject, RECIPE_FIXTURES, REPO } from './support/fixture-project.js';
import { temporaryProject } from '../support/temporary-directory.js';

const legacyStorage = readFileSync(join(RECIPE_FIXTURES, 'delegating-method/input.ts'), 'utf8');

describe('upgrade() from checkpoint-fencing/recipes', () => {
  it('never touches files under node_modules or dist, nor declaration files', async () => {
    const root = makeTempProject('never-touched');
    writeFileSync(
      join(root, 'tsconfig.json'),
      readFileSync(join(root, 'tsconfig.json'), 'utf8').replace('"**/*"', '"**/*", "node_modules/**/*"'),
    );
    for (const folder of ['src', 'dist', 'node_modules/legacy-lib']) {
      mkdirSync(join(root, folder), { recursive: true });
      writeFileSync(join(root, folder, 'storage.ts'), legacyStorage);
    }
    writeFileSync(
      join(root, 'src/storage-types.d.ts'),
      "import type { CheckpointStorage } from 'checkpoint-fencing';\nexport declare class Declared implements CheckpointStorage {\n  save(id: string, cp: string): Promise<string>;\n}\n",
    );
    const report = await upgrade({ cwd: root, mode: 'check' });
    expect(report.changes.map((change) => change.file)).toEqual([join(root, 'src/storage.ts')]);
    expect(report.implementers.map((implementer) => implementer.file)).toEqual([join(root, 'src/storage.ts')]);
  });

  it('reports before and after text in dry-run mode and writes nothing', async () => {
    const root = makeTempProject('dry-run-api');
    cpSync(join(RECIPE_FIXTURES, 'delegating-method'), join(root, 'case'), {
      recursive: true,
      filter: (path) => !path.endsWith('output.ts'),
    });
    const report = await upgrade({ cwd: root, mode: 'dry-run' });
    expect(report.written).toBe(false);
    expect(report.changes).toEqual([
      {
        file: join(root, 'case/input.ts'),
        before: legacyStorage,
        after: readFileSync(join(RECIPE_FIXTURES, 'delegating-method/output.ts'), 'utf8'),
      },
    ]);
    expect(readFileSync(join(root, 'case/input.ts'), 'utf8')).toBe(legacyStorage);
    expect(summaryLine(report)).toMatch(
      /^add-write-conditions: 1 file scanned, 1 implementer found \(0 skipped\), 1 file would change, \d+\.\d\ds\.$/,
    );
  });

  it("reads the package's own declarations when it is not installed, and says so (not blaming the resolution) in one line", async () => {
    const root = makeTempProject('unresolved');
    writeFileSync(
      join(root, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { module: 'nodenext', types: [] }, include: ['*.ts'] }),
    );
    writeFileSync(join(root, 'storage.ts'), legacyStorage);
    const report = await upgrade({ cwd: root });
    expect(report.changes.map((change) => change.file)).toEqual([join(root, 'storage.ts')]);
    expect(readFileSync(join(root, 'storage.ts'), 'utf8')).toBe(
      readFileSync(join(RECIPE_FIXTURES, 'delegating-method/output.ts'), 'utf8'),
    );
    expect(report.notices).toEqual([
      `note: 'checkpoint-fencing' is not installed for the project of ${join(root, 'tsconfig.json')}; read its declarations from ${join(REPO, 'runtime/index.ts')} instead: install it (npm install checkpoint-fencing) before compiling the upgraded code.`,
    ]);
  });

  it('reads the package\'s own declarations under "moduleResolution": "node10" when the installed copy has no top-level types', async () => {
    const root = makeTempProject('node10');
    writeFileSync(
      join(root, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { module: 'commonjs', moduleResolution: 'node', types: [] },
        include: ['*.ts'],
      }),
    );
    // An install as node10 sees an ESM-only release: subpath exports it ignores, no "types" or "main".
    mkdirSync(join(root, 'node_modules/checkpoint-fencing'), { recursive: true });
    writeFileSync(
      join(root, 'node_modules/checkpoint-fencing/package.json'),
      JSON.stringify({ name: 'checkpoint-fencing', type: 'module', exports: { '.': { types: './entry.d.ts' } } }),
    );
    writeFileSync(
      join(root, 'node_modules/checkpoint-fencing/entry.d.ts'),
      `export * from ${JSON.stringify(join(REPO, 'runtime/index.js'))};\n`,
    );
    writeFileSync(join(root, 'storage.ts'), legacyStorage);
    const report = await upgrade({ cwd: root, mode: 'check' });
    expect(report.changes.map((change) => change.after)).toEqual([
      readFileSync(join(RECIPE_FIXTURES, 'delegating-method/output.ts'), 'utf8'),
    ]);
    expect(report.notices).toEqual([
      `note: ${join(root, 'tsconfig.json')} resolves modules with "moduleResolution": "node10", which cannot resolve the installed 'checkpoint-fencing'; read its declarations from ${join(REPO, 'runtime/index.ts')} instead.`,
    ]);
  });

  it('run from a folder of the project, upgrades the project of the nearest tsconfig above, and says so (review 21)', async () => {
    const root = makeTempProject('from-subfolder');
    mkdirSync(join(root, 'src/storages'), { recursive: true });
    writeFileSync(join(root, 'src/storages/storage.ts'), legacyStorage);
    const report = await upgrade({ cwd: join(root, 'src/storages'), mode: 'check' });
    expect(report.changes.map((change) => change.file)).toEqual([join(root, 'src/storages/storage.ts')]);
    expect(report.notices).toEqual([
      `note: no tsconfig.json in the current folder; upgrading the project of ${join(root, 'tsconfig.json')}, the nearest one above (pass paths to upgrade only some of its files).`,
    ]);
  });

  it('finds storages whose interface comes through relative imports: a folder, its index, `.`, `..` and a .js name', async () => {
    const storage = (name: string, from: string): string =>
      `import type { Store } from '${from}';\nexport class ${name} implements Store {\n  async read(id: string) { return id; }\n  async save(id: string, checkpoint: string) { return checkpoint; }\n  async delete(id: string) {}\n}\n`;
    // Folder imports resolve under bundler resolution, not nodenext.
    const options = { ...fixtureCompilerOptions(), module: 'esnext', moduleResolution: 'bundler' };
    const root = temporaryProject('import-chains', {
      'tsconfig.json': JSON.stringify({ compilerOptions: options, include: ['src'] }),
      'src/contracts/checkpoint-store.ts': "export type { CheckpointStorage as Store } from 'checkpoint-fencing';\n",
      'src/contracts/index.ts': "export type { Store } from './checkpoint-store.js';\n",
      'src/contracts/dot.ts': storage('DotStorage', '.'),
      'src/contracts/nested/parent.ts': storage('ParentStorage', '..'),
      'src/folder.ts': storage('FolderStorage', './contracts'),
      'src/index-js.ts': storage('IndexJsStorage', './contracts/index.js'),
    });
    const report = await upgrade({ cwd: root, mode: 'check' });
    expect(report.implementers.map((implementer) => implementer.class).sort()).toEqual([
      'DotStorage',
      'FolderStorage',
      'IndexJsStorage',
      'ParentStorage',
    ]);
  });

  it("reports an object literal's save extended in place as the object-literal shape the docs name, not delegating", async () => {
    const root = makeTempProject('literal-shape');
    cpSync(join(RECIPE_FIXTURES, 'object-literal-typed/input.ts'), join(root, 'storage.ts'));
    const report = await upgrade({ cwd: root, mode: 'check' });
    expect(
      report.implementers.map(({ kind, shape, unconditionalSaveRenamedTo }) => ({
        kind,
        shape,
        unconditionalSaveRenamedTo,
      })),
    ).toEqual([{ kind: 'object-literal', shape: 'object-literal', unconditionalSaveRenamedTo: undefined }]);
  });

  it('leaves a get save() accessor alone, saying why and what to do (review 21)', async () => {
    const root = makeTempProject('accessor-save');
    writeFileSync(
      join(root, 'storage.ts'),
      [
        "import type { CheckpointStorage } from 'checkpoint-fencing';",
        '',
        'export class AccessorStorage implements CheckpointStorage {',
        '  readonly #rows = new Map<string, string>();',
        '  read(id: string): Promise<string | undefined> {',
        '    return Promise.resolve(this.#rows.get(id));',
        '  }',
        '  get save(): (id: string, checkpoint: string) => Promise<string> {',
        '    return (id, checkpoint) => Promise.resolve(checkpoint);',
        '  }',
        '  delete(): Promise<void> {',
        '    return Promise.resolve();',
        '  }',
        '}',
        '',
      ].join('\n'),
    );
    const report = await upgrade({ cwd: root, mode: 'check' });
    expect(report.changes).toEqual([]);
    expect(report.skipped).toEqual([
      {
        file: join(root, 'storage.ts'),
        class: 'AccessorStorage',
        line: 3,
        reason:
          'its save is an accessor (get save()), whose function the recipe cannot rewrite; make it a method or field, or add the condition to the function it returns by hand.',
      },
    ]);
  });

  it('reports a subclass of a class from another package as skipped, with the reason', async () => {
    const root = makeTempProject('external-base');
    writeFileSync(
      join(root, 'storage.ts'),
      "import type { CheckpointStorage } from 'checkpoint-fencing';\nimport { Table } from 'some-table-library';\n\nexport class TableStorage extends Table implements CheckpointStorage {\n  async read(id: string) {\n    return this.get(id);\n  }\n}\n",
    );
    const report = await upgrade({ cwd: root, mode: 'check' });
    expect(report.changes).toEqual([]);
    expect(report.skipped).toEqual([
      {
        file: join(root, 'storage.ts'),
        class: 'TableStorage',
        line: 4,
        reason: expect.stringMatching(
          /^extends Table, from a package whose declarations cannot be found .*; install the package's types and run again, or add save\(id, checkpoint, condition\) and writeVersion\(\) by hand\.$/,
        ) as unknown,
      },
    ]);
  });

  it('leaves a storage alone whose save, inherited from a plain base, takes the rest of the arguments, as it does an own one', async () => {
    const root = makeTempProject('inherited-rest-save');
    writeFileSync(
      join(root, 'storage.ts'),
      [
        "import type { CheckpointStorage } from 'checkpoint-fencing';",
        'class KeyValueTable {',
        '  async save(...args: unknown[]): Promise<string> {',
        '    return String(args[1]);',
        '  }',
        '}',
        'export class TableStorage extends KeyValueTable implements CheckpointStorage {',
        '  async read(id: string): Promise<string | undefined> {',
        '    return id;',
        '  }',
        '  async delete(): Promise<void> {}',
        '  async writeVersion(): Promise<bigint | undefined> {',
        '    return undefined;',
        '  }',
        '}',
        '',
      ].join('\n'),
    );
    const report = await upgrade({ cwd: root, mode: 'check' });
    expect(report.implementers).toMatchObject([{ class: 'TableStorage', shape: 'unchanged', membersAdded: [] }]);
    expect(report.changes).toEqual([]);
  });
});
