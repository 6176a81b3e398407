import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { upgrade, UpgradeError, type UpgradeReport } from '../../recipes/index.js';
import { fixtureCompilerOptions, installBuiltRuntime, makeTempProject, typeCheck } from './support/fixture-project.js';
import { commitAll } from './support/git-repo.js';
import { runnableCopy } from './support/runnable-copy.js';
import { expectSameBehaviour } from './support/storage-behaviour.js';
import { temporaryDirectory } from '../support/temporary-directory.js';

// Shapes from real projects that an adversarial review found the upgrade getting wrong: each project is upgraded
// twice (the second run must change nothing), type-checked, and where a binding or a call path could change, run.

type Files = Readonly<Record<string, string>>;
type Module = Record<string, unknown>;

interface Upgraded {
  readonly root: string;
  readonly report: UpgradeReport;
  /** `src/` as it was, and as the upgrade left it, each in a copy vitest can import. */
  readonly before: string;
  readonly after: string;
}

function writeFiles(root: string, files: Files): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

function snapshot(folder: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (path: string): void => {
    if (statSync(path).isDirectory()) {
      for (const entry of readdirSync(path)) {
        walk(join(path, entry));
      }
    } else {
      files.set(path, readFileSync(path, 'utf8'));
    }
  };
  walk(folder);
  return files;
}

/**
 * Upgrades a project of `files` (under `src/`), with the runtime installed as users get it, twice, proving the second
 * run changes nothing.
 */
async function upgradeTwice(
  prefix: string,
  files: Files,
  compilerOptions: Record<string, unknown> = {},
): Promise<Upgraded> {
  const root = makeTempProject(prefix);
  writeFileSync(
    join(root, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { ...installBuiltRuntime(root), ...compilerOptions }, include: ['src'] }),
  );
  writeFiles(root, files);
  const before = runnableCopy(join(root, 'src'));
  const report = await upgrade({ cwd: root });
  const once = snapshot(join(root, 'src'));
  const second = await upgrade({ cwd: root });
  expect(second.changes).toEqual([]);
  expect(snapshot(join(root, 'src'))).toEqual(once);
  return { root, report, before, after: runnableCopy(join(root, 'src')) };
}

async function construct(folder: string, file: string, exportName: string): Promise<object> {
  const module = (await import(join(folder, file))) as Module;
  return new (module[exportName] as new () => object)();
}

function text(root: string, file: string): string {
  return readFileSync(join(root, 'src', file), 'utf8');
}

/**
 * A class storage over a map `rows`: `head` above the class (imports), its `declaration` line, then read, the lines
 * of `save` as given, and delete.
 */
function storageClass(head: readonly string[], declaration: string, save: readonly string[]): string {
  return [
    ...head,
    '',
    `${declaration} {`,
    '  readonly rows = new Map<string, string>();',
    '  async read(id: string): Promise<string | undefined> {',
    '    return this.rows.get(id);',
    '  }',
    ...save,
    '  async delete(id: string): Promise<void> {',
    '    this.rows.delete(id);',
    '  }',
    '}',
    '',
  ].join('\n');
}

const IMPORT_STORAGE = "import type { CheckpointStorage } from 'checkpoint-fencing';";

const MAP_STORAGE = storageClass([IMPORT_STORAGE], 'export class MapStorage implements CheckpointStorage', [
  '  async save(id: string, checkpoint: string): Promise<string> {',
  '    this.rows.set(id, checkpoint);',
  '    return checkpoint;',
  '  }',
]);

describe('add-write-conditions on shapes from real projects', { timeout: 90_000 }, () => {
  it('keeps an arrow-field save of a subclass bound when its abstract base gets the generated save (review 1)', async () => {
    const { root, before, after } = await upgradeTwice('arrow-subclass', {
      'src/base.ts': [
        "import type { CheckpointStorage } from 'checkpoint-fencing';",
        '',
        'export abstract class BaseStorage implements CheckpointStorage {',
        '  protected readonly rows = new Map<string, string>();',
        '  read(id: string): Promise<string | undefined> {',
        '    return Promise.resolve(this.rows.get(id));',
        '  }',
        '  abstract save(id: string, checkpoint: string): Promise<string>;',
        '  delete(id: string): Promise<void> {',
        '    this.rows.delete(id);',
        '    return Promise.resolve();',
        '  }',
        '}',
        '',
      ].join('\n'),
      'src/memory.ts': [
        "import { BaseStorage } from './base.js';",
        '',
        'export class MemoryStorage extends BaseStorage {',
        '  save = async (id: string, checkpoint: string): Promise<string> => {',
        '    this.rows.set(id, checkpoint);',
        '    return checkpoint;',
        '  };',
        '}',
        '',
      ].join('\n'),
    });
    expect(typeCheck(root)).toBe('');
    await expectSameBehaviour(
      () => construct(before, 'memory.ts', 'MemoryStorage'),
      () => construct(after, 'memory.ts', 'MemoryStorage'),
    );
  });

  it('renames every super.save of a subclass, not only the one in its override (review 2)', async () => {
    const { root, before, after } = await upgradeTwice('super-save', {
      'src/map-storage.ts': MAP_STORAGE,
      'src/counting-storage.ts': [
        "import { MapStorage } from './map-storage.js';",
        '',
        'export class CountingStorage extends MapStorage {',
        '  writes = 0;',
        '  override async save(id: string, checkpoint: string): Promise<string> {',
        '    this.writes += 1;',
        '    return super.save(id, checkpoint);',
        '  }',
        '  /** Puts a checkpoint back without counting it as a write. */',
        '  async restore(id: string, checkpoint: string): Promise<string> {',
        '    return super.save(id, checkpoint);',
        '  }',
        '}',
        '',
      ].join('\n'),
    });
    expect(typeCheck(root)).toBe('');
    const writesAfterRestore = async (folder: string): Promise<unknown> => {
      const storage = (await construct(folder, 'counting-storage.ts', 'CountingStorage')) as {
        restore(id: string, checkpoint: string): Promise<string>;
        writes: number;
      };
      await storage.restore('orders', '1');
      return storage.writes;
    };
    expect(await writesAfterRestore(before)).toBe(0);
    expect(await writesAfterRestore(after)).toBe(0);
    await expectSameBehaviour(
      () => construct(before, 'counting-storage.ts', 'CountingStorage'),
      () => construct(after, 'counting-storage.ts', 'CountingStorage'),
    );
  });

  it('carries type parameters and this parameters over to the renamed and generated members (review 4)', async () => {
    const { root, report } = await upgradeTwice('signatures', {
      'src/generic.ts': storageClass([IMPORT_STORAGE], 'export class GenericStorage implements CheckpointStorage', [
        '  async save<T extends string>(id: string, checkpoint: T): Promise<T> {',
        '    this.rows.set(id, checkpoint);',
        '    return checkpoint;',
        '  }',
      ]),
      'src/this-class.ts': storageClass(
        [IMPORT_STORAGE],
        'export class ThisParameterStorage implements CheckpointStorage',
        [
          '  async save(this: ThisParameterStorage, id: string, cp: string): Promise<string> {',
          '    this.rows.set(id, cp);',
          '    return cp;',
          '  }',
        ],
      ),
      'src/this-literal.ts': [
        "import type { CheckpointStorage } from 'checkpoint-fencing';",
        '',
        'interface Table {',
        '  rows: Map<string, string>;',
        '}',
        '',
        'export const tableStorage = {',
        '  rows: new Map<string, string>(),',
        '  read(this: Table, id: string) {',
        '    return Promise.resolve(this.rows.get(id));',
        '  },',
        '  save: function (this: Table, subscriptionId: string, checkpoint: string) {',
        '    this.rows.set(subscriptionId, checkpoint);',
        '    return Promise.resolve(checkpoint);',
        '  },',
        '  delete(this: Table, id: string) {',
        '    this.rows.delete(id);',
        '    return Promise.resolve();',
        '  },',
        '} as CheckpointStorage;',
        '',
      ].join('\n'),
    });
    expect(report.skipped).toEqual([]);
    expect(typeCheck(root)).toBe('');
    expect(text(root, 'generic.ts')).toContain('async saveUnconditionally<T extends string>(');
    expect(text(root, 'this-class.ts')).toMatch(/saveUnconditionally\(\s*this: ThisParameterStorage,/);
    expect(text(root, 'this-literal.ts')).toMatch(/save: function \(\s*this: Table,/);
  });

  it('leaves a save with overload signatures alone, with the reason (review 4)', async () => {
    const overloaded = {
      'src/overloads.ts': storageClass(
        [IMPORT_STORAGE],
        'export class OverloadedStorage implements CheckpointStorage',
        [
          '  save(id: string, checkpoint: string): Promise<string>;',
          '  save(id: string, checkpoint: number): Promise<string>;',
          '  async save(id: string, checkpoint: string | number): Promise<string> {',
          '    this.rows.set(id, String(checkpoint));',
          '    return String(checkpoint);',
          '  }',
        ],
      ),
    };
    const { root, report } = await upgradeTwice('overloads', overloaded);
    expect(text(root, 'overloads.ts')).toBe(overloaded['src/overloads.ts']);
    expect(report.skipped).toEqual([
      {
        file: join(root, 'src/overloads.ts'),
        class: 'OverloadedStorage',
        line: 3,
        reason: expect.stringMatching(
          /^its save has overload signatures, which the recipe does not rewrite; /,
        ) as unknown,
      },
    ]);
  });

  it('upgrades a save assigned in the constructor or bound in a field in place, attached and detached alike', async () => {
    const { root, report, before, after } = await upgradeTwice('constructor-assigned', {
      'src/assigned.ts': storageClass([IMPORT_STORAGE], 'export class AssignedStorage implements CheckpointStorage', [
        "  save: CheckpointStorage['save'];",
        '  constructor() {',
        '    this.save = async (id, checkpoint) => {',
        '      this.rows.set(id, checkpoint);',
        '      return checkpoint;',
        '    };',
        '  }',
      ]),
      'src/bound.ts': storageClass([IMPORT_STORAGE], 'export class BoundStorage implements CheckpointStorage', [
        '  save = this.persist.bind(this);',
        '  private persist(id: string, checkpoint: string): Promise<string> {',
        '    this.rows.set(id, checkpoint);',
        '    return Promise.resolve(checkpoint);',
        '  }',
      ]),
    });
    expect(report.implementers.map(({ class: name, shape }) => [name, shape])).toEqual([
      ['AssignedStorage', 'constructor-assigned'],
      ['BoundStorage', 'constructor-assigned'],
    ]);
    expect(typeCheck(root)).toBe('');
    for (const [file, name] of [
      ['assigned.ts', 'AssignedStorage'],
      ['bound.ts', 'BoundStorage'],
    ] as const) {
      await expectSameBehaviour(
        () => construct(before, file, name),
        () => construct(after, file, name),
      );
    }
  });

  it('upgrades a bound save whatever its method is called and whatever comments it holds', async () => {
    const { report } = await upgradeTwice('bound-spelled', {
      'src/bound.ts': storageClass([IMPORT_STORAGE], 'export class BoundStorage implements CheckpointStorage', [
        '  save = this.persistÉtat.bind(this /* the storage itself */);',
        '  private persistÉtat(id: string, checkpoint: string): Promise<string> {',
        '    this.rows.set(id, checkpoint);',
        '    return Promise.resolve(checkpoint);',
        '  }',
      ]),
    });
    expect(report.implementers.map(({ class: name, shape }) => [name, shape])).toEqual([
      ['BoundStorage', 'constructor-assigned'],
    ]);
  });

  it('leaves a save assigned from an import, a parameter or a field function alone, naming where to add the condition', async () => {
    const assigned = (name: string, head: readonly string[], rest: readonly string[]): string =>
      [
        ...head,
        "import type { CheckpointStorage } from 'checkpoint-fencing';",
        '',
        `export class ${name} implements CheckpointStorage {`,
        '  private readonly rows = new Map<string, string>();',
        ...rest,
        '  read = (id: string) => Promise.resolve(this.rows.get(id));',
        '  delete = (id: string) => Promise.resolve(void this.rows.delete(id));',
        '}',
        '',
      ].join('\n');
    const files = {
      'src/rows.ts': 'export const saveRow = (id: string, cp: string): Promise<string> => Promise.resolve(id + cp);\n',
      'src/imported.ts': assigned(
        'ImportedSave',
        ["import { saveRow } from './rows.js';"],
        ["  save: CheckpointStorage['save'];", '  constructor() {', '    this.save = saveRow;', '  }'],
      ),
      'src/injected.ts': assigned(
        'InjectedSave',
        [],
        [
          '  save: (id: string, cp: string) => Promise<string>;',
          '  constructor(write: (id: string, cp: string) => Promise<string>) {',
          '    this.save = write;',
          '  }',
        ],
      ),
      'src/bound-field.ts': assigned(
        'BoundFieldSave',
        [],
        [
          '  private persist = (id: string, cp: string) => Promise.resolve(void this.rows.set(id, cp)).then(() => cp);',
          '  save = this.persist.bind(this);',
        ],
      ),
    };
    const { root, report } = await upgradeTwice('assigned-elsewhere', files);
    for (const [file, before] of Object.entries(files)) {
      expect(text(root, file.replace('src/', ''))).toBe(before);
    }
    const reason = (assignedFrom: string): string =>
      `its save is ${assignedFrom}, not a function written in this class or literal, so the condition cannot be added to it here; add it there, where that function is written.`;
    expect(report.skipped.map(({ class: name, reason }) => [name, reason]).sort()).toEqual([
      ['BoundFieldSave', reason(`assigned from \`this.persist.bind(this)\` at ${join(root, 'src/bound-field.ts')}:6`)],
      [
        'ImportedSave',
        reason(`assigned from \`saveRow\` (imported from './rows.js') at ${join(root, 'src/imported.ts')}:8`),
      ],
      [
        'InjectedSave',
        reason(`assigned from \`write\` (a parameter of the constructor) at ${join(root, 'src/injected.ts')}:7`),
      ],
    ]);
  });

  it('leaves a class alone whose constructor assigns save in a branch or by Object.assign, naming where', async () => {
    const files = {
      'src/branch.js': [
        "/** @typedef {import('checkpoint-fencing').CheckpointStorage} CheckpointStorage */",
        '',
        '/** @implements {CheckpointStorage} */',
        'export class BranchSave {',
        '  constructor(legacy) {',
        '    this.rows = new Map();',
        '    this.read = (id) => Promise.resolve(this.rows.get(id));',
        '    this.delete = (id) => Promise.resolve(void this.rows.delete(id));',
        '    if (legacy) {',
        '      this.save = (id, cp) => Promise.resolve(void this.rows.set(id, cp)).then(() => cp);',
        '    }',
        '  }',
        '}',
        '',
      ].join('\n'),
      'src/assigned.ts': [
        "import type { CheckpointStorage } from 'checkpoint-fencing';",
        '',
        'export interface AssignedSave extends CheckpointStorage {}',
        'export class AssignedSave implements CheckpointStorage {',
        '  private readonly rows = new Map<string, string>();',
        '  constructor() {',
        '    Object.assign(this, {',
        '      save: (id: string, cp: string) => Promise.resolve(void this.rows.set(id, cp)).then(() => cp),',
        '    });',
        '  }',
        '  read = (id: string) => Promise.resolve(this.rows.get(id));',
        '  delete = (id: string) => Promise.resolve(void this.rows.delete(id));',
        '}',
        '',
      ].join('\n'),
    };
    const { root, report } = await upgradeTwice('assigned-in-constructor', files, { allowJs: true, checkJs: true });
    for (const [file, before] of Object.entries(files)) {
      expect(text(root, file.replace('src/', ''))).toBe(before);
    }
    const reason = (at: string): string =>
      `its constructor assigns this.save at ${at} other than once, as a statement of its own (in a branch, a callback, Object.assign), and the instance's own property would hide a save the recipe adds; assign it once at the top of the constructor, or add the condition by hand.`;
    expect(report.skipped.map(({ class: name, reason }) => [name, reason]).sort()).toEqual([
      ['AssignedSave', reason(`${join(root, 'src/assigned.ts')}:7`)],
      ['BranchSave', reason(`${join(root, 'src/branch.js')}:10`)],
    ]);
  });

  it('imports with import = require in a CommonJS file under verbatimModuleSyntax (review 6)', async () => {
    const { root } = await upgradeTwice(
      'verbatim-commonjs',
      { 'src/map-storage.cts': MAP_STORAGE.replace('export class', 'class') + 'export = MapStorage;\n' },
      { verbatimModuleSyntax: true },
    );
    expect(text(root, 'map-storage.cts')).toMatch(/^import \w+ = require\('checkpoint-fencing'\);$/m);
    expect(typeCheck(root)).toBe('');
  });

  it('upgrades JavaScript storages of an allowJs project, with JSDoc types checkJs accepts (review 5a, 5c)', async () => {
    const javascript = (exported: string): string =>
      [
        "/** @typedef {import('checkpoint-fencing').CheckpointStorage} CheckpointStorage */",
        '',
        '/** @implements {CheckpointStorage} */',
        'class ObjectCheckpointStorage {',
        '  constructor() {',
        '    /** @type {Map<string, string>} */',
        '    this.rows = new Map();',
        '  }',
        '  /** @param {string} id */',
        '  async read(id) {',
        '    return this.rows.get(id);',
        '  }',
        '  /**',
        '   * @param {string} id',
        '   * @param {string} checkpoint',
        '   */',
        '  async save(id, checkpoint) {',
        '    this.rows.set(id, checkpoint);',
        '    return checkpoint;',
        '  }',
        '  /** @param {string} id */',
        '  async delete(id) {',
        '    this.rows.delete(id);',
        '  }',
        '}',
        exported,
        '',
      ].join('\n');
    const { root, report, before, after } = await upgradeTwice(
      'javascript',
      { 'src/object-storage.js': javascript('export { ObjectCheckpointStorage };') },
      { allowJs: true, checkJs: true },
    );
    expect(report.changes.map((change) => change.file)).toEqual([join(root, 'src/object-storage.js')]);
    expect(typeCheck(root)).toBe('');
    await expectSameBehaviour(
      () => construct(before, 'object-storage.js', 'ObjectCheckpointStorage'),
      () => construct(after, 'object-storage.js', 'ObjectCheckpointStorage'),
    );
  });

  it('upgrades a project that lies in a folder named dist (review 9a)', async () => {
    const outer = temporaryDirectory('under-dist');
    const root = join(outer, 'dist', 'app');
    mkdirSync(join(root, 'src'), { recursive: true });
    writeFileSync(join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: fixtureCompilerOptions() }));
    writeFileSync(join(root, 'src/map-storage.ts'), MAP_STORAGE);
    const report = await upgrade({ cwd: root, mode: 'check' });
    expect(report.filesScanned).toBe(1);
    expect(report.changes.map((change) => change.file)).toEqual([join(root, 'src/map-storage.ts')]);
  });

  it('upgrades a class with its own save whose base comes from a package (review 9b)', async () => {
    const { root, report, before, after } = await upgradeTwice('package-base', {
      'src/emitting-storage.ts': storageClass(
        ["import { EventEmitter } from 'node:events';", IMPORT_STORAGE],
        'export class EmittingStorage extends EventEmitter implements CheckpointStorage',
        [
          '  async save(id: string, checkpoint: string): Promise<string> {',
          '    this.rows.set(id, checkpoint);',
          "    this.emit('saved', id);",
          '    return checkpoint;',
          '  }',
        ],
      ),
    });
    expect(report.skipped).toEqual([]);
    expect(typeCheck(root)).toBe('');
    await expectSameBehaviour(
      () => construct(before, 'emitting-storage.ts', 'EmittingStorage'),
      () => construct(after, 'emitting-storage.ts', 'EmittingStorage'),
    );
  });

  it('upgrades an object literal typed as an intersection with the storage interface (review 9c)', async () => {
    const { root, report } = await upgradeTwice('intersection', {
      'src/storage.ts': [
        "import type { CheckpointStorage } from 'checkpoint-fencing';",
        '',
        'interface Closeable {',
        '  close(): Promise<void>;',
        '}',
        '',
        'const rows = new Map<string, string>();',
        '',
        'export const storage: CheckpointStorage & Closeable = {',
        '  read: (id) => Promise.resolve(rows.get(id)),',
        '  save: (id, cp) => {',
        '    rows.set(id, cp);',
        '    return Promise.resolve(cp);',
        '  },',
        '  delete: (id) => Promise.resolve(void rows.delete(id)),',
        '  close: () => Promise.resolve(),',
        '};',
        '',
      ].join('\n'),
    });
    expect(report.implementers.map((implementer) => implementer.class)).toEqual(['storage']);
    expect(text(root, 'storage.ts')).toContain('writeVersion');
    expect(typeCheck(root)).toBe('');
  });

  it('writes public on generated members of a class that writes public on its own (review 18)', async () => {
    const { root } = await upgradeTwice('explicit-public', {
      'src/public-storage.ts': MAP_STORAGE.replace(/^ {2}(async )/gm, '  public $1'),
    });
    expect(text(root, 'public-storage.ts')).toMatch(/^ {2}public writeVersion\(\)/m);
    expect(text(root, 'public-storage.ts')).toMatch(/^ {2}public async save\(/m);
    expect(typeCheck(root)).toBe('');
  });
});

describe('add-write-conditions over parts of a project and across work trees', () => {
  const base = MAP_STORAGE;
  const subclass = [
    "import { MapStorage } from '../base/map-storage.js';",
    '',
    'export class LoggingStorage extends MapStorage {',
    '  override async save(id: string, checkpoint: string): Promise<string> {',
    '    return super.save(id, checkpoint);',
    '  }',
    '}',
    '',
  ].join('\n');

  it('leaves a base alone, naming the subclass, when its subclass lies outside the paths given (review 3a)', async () => {
    const root = makeTempProject('partial-run');
    writeFiles(root, { 'src/base/map-storage.ts': base, 'src/impl/logging-storage.ts': subclass });
    const report = await upgrade({ cwd: root, paths: ['src/base'], mode: 'check' });
    expect(report.changes).toEqual([]);
    expect(report.skipped).toEqual([
      {
        file: join(root, 'src/base/map-storage.ts'),
        class: 'MapStorage',
        line: 3,
        reason: `LoggingStorage in ${join(root, 'src/impl/logging-storage.ts')} belongs to the same class hierarchy and would have to change with it, but is outside the paths given (or the workspace folder the upgrade runs in); pass both paths, or run the upgrade on the whole project or at the workspace root.`,
      },
    ]);
    const whole = await upgrade({ cwd: root, mode: 'check' });
    expect(whole.skipped).toEqual([]);
    expect(whole.changes).toHaveLength(2);
  });

  it('writes project files outside the git work tree instead of failing in git status (review 11)', async () => {
    const outer = temporaryDirectory('outside-work-tree');
    const root = join(outer, 'app');
    writeFiles(outer, {
      'app/src/map-storage.ts': MAP_STORAGE,
      'shared/shared-storage.ts': MAP_STORAGE.replace('MapStorage', 'SharedStorage'),
      'app/tsconfig.json': JSON.stringify({ compilerOptions: fixtureCompilerOptions(), include: ['src', '../shared'] }),
    });
    commitAll(root);
    const report = await upgrade({ cwd: root });
    expect(report.changes.map((change) => change.file).sort()).toEqual(
      [join(outer, 'shared/shared-storage.ts'), join(root, 'src/map-storage.ts')].sort(),
    );
    expect(readFileSync(join(outer, 'shared/shared-storage.ts'), 'utf8')).toContain('saveUnconditionally');
  });
  it('writes a committed file whose name git would read as a pattern, beside a changed file it would match', async () => {
    const root = makeTempProject('pathspec');
    writeFiles(root, { 'src/[id].ts': MAP_STORAGE, 'src/i.ts': 'export const i = 1;\n' });
    commitAll(root);
    writeFileSync(join(root, 'src/i.ts'), 'export const i = 2;\n');
    const report = await upgrade({ cwd: root });
    expect(report.changes.map((change) => change.file)).toEqual([join(root, 'src/[id].ts')]);
    expect(readFileSync(join(root, 'src/[id].ts'), 'utf8')).toContain('saveUnconditionally');
  });

  it('turns a failing git status into a one-line UpgradeError naming the work tree (review 11)', async () => {
    const root = makeTempProject('broken-git');
    writeFiles(root, { 'src/map-storage.ts': MAP_STORAGE });
    commitAll(root);
    writeFileSync(join(root, '.git/index'), 'not an index');
    const failure = await upgrade({ cwd: root }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UpgradeError);
    expect((failure as Error).message).toMatch(
      /^\/.+: git status failed \(.+\), so uncommitted changes cannot be ruled out; fix the repository, or pass --allow-dirty\.$/,
    );
    expect(readFileSync(join(root, 'src/map-storage.ts'), 'utf8')).toBe(MAP_STORAGE);
  });
});
