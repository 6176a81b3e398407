import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Script } from 'node:vm';
import { applyTransform } from 'jscodeshift/src/testUtils.js';
import { describe, expect, it } from 'vitest';
import transform, { type TransformApi } from '../../recipes/add-write-conditions/jscodeshift.js';
import { RECIPE_FIXTURES, singleFileCases } from './support/fixture-project.js';
import { projectCases, projectFiles } from './support/project-case.js';
import { temporaryDirectory, temporaryProject } from '../support/temporary-directory.js';

/** Cases the syntactic front end cannot see, because the storage interface reaches the file through another file. */
const NEEDS_TYPES = new Set(['barrel-reexport']);

/**
 * Where a case's file is said to be: outside this repository, as the CLI test's copies are, so this repository's own
 * Prettier configuration (120 columns) does not set the width generated lines wrap at.
 */
function outside(name: string, file: string): string {
  return join(tmpdir(), 'checkpoint-fencing-jscodeshift', name, file);
}

function run(path: string, source: string, reports: string[] = []): string {
  const api: TransformApi = { report: (message) => reports.push(message) };
  return transform({ path, source }, api) ?? source;
}

describe('add-write-conditions as a jscodeshift transform', () => {
  for (const name of singleFileCases()) {
    const inputName = readdirSync(join(RECIPE_FIXTURES, name)).find((file) => file.startsWith('input.')) ?? 'input.ts';
    const input = readFileSync(join(RECIPE_FIXTURES, name, inputName), 'utf8');
    const expected = readFileSync(join(RECIPE_FIXTURES, name, inputName.replace('input.', 'output.')), 'utf8');

    if (NEEDS_TYPES.has(name)) {
      it(`${name}: leaves the file alone without type information (the CLI upgrades it)`, () => {
        expect(run(outside(name, inputName), input)).toBe(input);
        expect(expected).not.toBe(input);
      });
      continue;
    }
    it(`${name}: writes exactly what the CLI writes, and nothing on a second run`, () => {
      const once = run(outside(name, inputName), input);
      expect(once).toBe(expected);
      expect(run(outside(name, inputName), once)).toBe(once);
    });
  }

  it('names a cycle of extends among implementers, and reads past one among plain classes', () => {
    const storage = (name: string, base: string) =>
      `class ${name} extends ${base} implements CheckpointStorage {\n  async read(id: string) {\n    return undefined;\n  }\n}\n`;
    const header = "import type { CheckpointStorage } from 'checkpoint-fencing';\n";
    expect(() => run(outside('cycle', 'storage.ts'), header + storage('A', 'B') + storage('B', 'A'))).toThrow(
      /A extends itself through its base classes/,
    );
    const plain = `${header}class P extends Q {}\nclass Q extends P {}\n${storage('C', 'P')}`;
    const reports: string[] = [];
    expect(run(outside('cycle', 'plain.ts'), plain, reports)).toContain('TODO [checkpoint-fencing upgrade]');
    expect(reports).toEqual([]);
  });

  it("runs through jscodeshift's own applyTransform with the ts parser", () => {
    const input = readFileSync(join(RECIPE_FIXTURES, 'delegating-method/input.ts'), 'utf8');
    const expected = readFileSync(join(RECIPE_FIXTURES, 'delegating-method/output.ts'), 'utf8');
    // applyTransform trims its result; the byte-exact comparison is the per-case test above.
    expect(
      applyTransform(
        { default: transform, parser: 'ts' },
        {},
        { path: outside('delegating-method', 'storage.ts'), source: input },
      ),
    ).toBe(expected.trim());
  });

  it('reports, and leaves alone, a class whose base class lives in another file', () => {
    const source = [
      "import type { CheckpointStorage } from 'checkpoint-fencing';",
      "import { Table } from './table.js';",
      '',
      'export class TableStorage extends Table implements CheckpointStorage {',
      '  async read(id: string) {',
      '    return this.get(id);',
      '  }',
      '}',
      '',
    ].join('\n');
    const reports: string[] = [];
    expect(run('table-storage.ts', source, reports)).toBe(source);
    expect(reports).toEqual([
      expect.stringMatching(
        /^skipped TableStorage \(line 4\): extends Table, declared in another file, which this transform cannot see into; run `npx checkpoint-fencing-codemod upgrade`/,
      ),
    ]);
  });

  it('parses .tsx with JSX enabled even when jscodeshift was told --parser=ts', () => {
    const input = readFileSync(join(RECIPE_FIXTURES, 'tsx-component/input.tsx'), 'utf8');
    const expected = readFileSync(join(RECIPE_FIXTURES, 'tsx-component/output.tsx'), 'utf8');
    expect(transform({ path: outside('tsx-component', 'panel.tsx'), source: input }, {})).toBe(expected);
  });
});

describe('what the transform writes where the file decides the syntax', () => {
  it("requires the error class in a CommonJS script, below 'use strict', so the file still loads (review 5b)", () => {
    const input = [
      "'use strict';",
      "/** @typedef {import('checkpoint-fencing').CheckpointStorage} CheckpointStorage */",
      '',
      '/** @implements {CheckpointStorage} */',
      'class ObjectCheckpointStorage {',
      '  constructor() {',
      '    this.rows = new Map();',
      '  }',
      '  async read(id) {',
      '    return this.rows.get(id);',
      '  }',
      '  async save(id, checkpoint) {',
      '    this.rows.set(id, checkpoint);',
      '    return checkpoint;',
      '  }',
      '  async delete(id) {',
      '    this.rows.delete(id);',
      '  }',
      '}',
      'module.exports = { ObjectCheckpointStorage };',
      '',
    ].join('\n');
    const once = run(outside('commonjs-script', 'object-storage.js'), input);
    expect(once.split('\n').slice(0, 3)).toEqual([
      "'use strict';",
      '',
      "const { UnsupportedWriteConditionError } = require('checkpoint-fencing');",
    ]);
    // A script with an import declaration would not even compile.
    expect(() => new Script(once)).not.toThrow();
    expect(run(outside('commonjs-script', 'object-storage.js'), once)).toBe(once);
  });
});

describe('how the transform adds to the lists a file already writes', () => {
  const storageClass = [
    '',
    '/** @implements {CheckpointStorage} */',
    'class ObjectCheckpointStorage {',
    '  async read(id) {',
    '    return id;',
    '  }',
    '  async save(id, checkpoint) {',
    '    return checkpoint;',
    '  }',
    '  async delete(id) {}',
    '}',
    '',
  ];
  const typedef = "/** @typedef {import('checkpoint-fencing').CheckpointStorage} CheckpointStorage */";
  /** File name, the lines above the class, and those lines as the transform leaves them. */
  const cases: readonly (readonly [string, string, readonly string[], readonly string[]])[] = [
    [
      'a require list ending in a rest element gets its own require, as a rest element must stay last',
      'rest.js',
      [typedef, 'const {', '  PACKAGE_NAME,', '  nested: { deep },', '  ...rest', "} = require('checkpoint-fencing');"],
      [
        typedef,
        'const {',
        '  PACKAGE_NAME,',
        '  nested: { deep },',
        '  ...rest',
        "} = require('checkpoint-fencing');",
        "const { UnsupportedWriteConditionError } = require('checkpoint-fencing');",
      ],
    ],
    [
      'a require list broken to fit keeps its nested patterns as written',
      'nested.js',
      [typedef, "const { PACKAGE_NAME, nested: { deep }, other: { more } } = require('checkpoint-fencing');"],
      [
        typedef,
        'const {',
        '  PACKAGE_NAME,',
        '  nested: { deep },',
        '  other: { more },',
        '  UnsupportedWriteConditionError,',
        "} = require('checkpoint-fencing');",
      ],
    ],
    [
      'a one-line import written with a trailing comma gains its names after that comma, without a second one',
      'comma.mjs',
      ["import { PACKAGE_NAME, } from 'checkpoint-fencing';", typedef],
      ["import { PACKAGE_NAME, UnsupportedWriteConditionError } from 'checkpoint-fencing';", typedef],
    ],
  ];
  for (const [label, file, head, expected] of cases) {
    it(label, () => {
      const once = run(outside('lists', file), [...head, ...storageClass].join('\n'));
      expect(once.split('\n').slice(0, expected.length + 1)).toEqual([...expected, '']);
      expect(run(outside('lists', file), once)).toBe(once);
    });
  }

  it('puts the refusal into an empty body broken over lines without leaving a blank line', () => {
    const input = [
      "import type { CheckpointStorage } from 'checkpoint-fencing';",
      '',
      'export const storage: CheckpointStorage = {',
      '  read: (id: string) => Promise.resolve(id),',
      '  async save(id: string, checkpoint: string) {',
      '  },',
      '  delete: (id: string) => Promise.resolve(),',
      '};',
      '',
    ].join('\n');
    const once = run(outside('lists', 'empty-body.ts'), input);
    const body = once.split('\n').slice(once.split('\n').indexOf('  ) {'));
    expect(body.slice(0, 6)).toEqual([
      '  ) {',
      "    if (condition !== undefined && condition.kind !== 'any') {",
      '      throw new UnsupportedWriteConditionError(condition);',
      '    }',
      '  },',
      '  delete: (id: string) => Promise.resolve(),',
    ]);
  });
});

describe('a JavaScript object literal typed by JSDoc (review 5d)', () => {
  it('is upgraded like a typed TypeScript literal', () => {
    const input = [
      "/** @typedef {import('checkpoint-fencing').CheckpointStorage} CheckpointStorage */",
      '',
      'const rows = new Map();',
      '',
      '/** @type {CheckpointStorage} */',
      'export const storage = {',
      '  read: (id) => Promise.resolve(rows.get(id)),',
      '  save: (id, checkpoint) => {',
      '    rows.set(id, checkpoint);',
      '    return Promise.resolve(checkpoint);',
      '  },',
      '  delete: (id) => Promise.resolve(void rows.delete(id)),',
      '};',
      '',
    ].join('\n');
    const once = run(outside('jsdoc-type-literal', 'storage.js'), input);
    expect(once).toContain("if (condition !== undefined && condition.kind !== 'any') {");
    expect(once).toContain('writeVersion: () => Promise.resolve(undefined),');
    expect(run(outside('jsdoc-type-literal', 'storage.js'), once)).toBe(once);
  });
});

describe('a base whose subclass in another file reaches it other than by a named relative import (review 7)', () => {
  const base = (exported: string): string =>
    [
      "import type { CheckpointStorage } from 'checkpoint-fencing';",
      '',
      `${exported} abstract class BaseStorage implements CheckpointStorage {`,
      '  protected readonly rows = new Map<string, string>();',
      '  async read(id: string): Promise<string | undefined> {',
      '    return this.rows.get(id);',
      '  }',
      '  abstract save(id: string, checkpoint: string): Promise<string>;',
      '  async delete(id: string): Promise<void> {',
      '    this.rows.delete(id);',
      '  }',
      '}',
      '',
    ].join('\n');
  const subclass = (importLine: string, extended: string): string =>
    [
      importLine,
      '',
      `export class MemoryStorage extends ${extended} {`,
      '  async save(id: string, checkpoint: string): Promise<string> {',
      '    this.rows.set(id, checkpoint);',
      '    return checkpoint;',
      '  }',
      '}',
      '',
    ].join('\n');
  const cases: readonly (readonly [string, Readonly<Record<string, string>>])[] = [
    [
      'a default import under another name',
      {
        'src/base-storage.ts': base('export default'),
        'src/memory-storage.ts': subclass("import Storage from './base-storage.js';", 'Storage'),
      },
    ],
    [
      'a barrel',
      {
        'src/base-storage.ts': base('export'),
        'src/index.ts': "export { BaseStorage } from './base-storage.js';\n",
        'src/memory/memory-storage.ts': subclass("import { BaseStorage } from '../index.js';", 'BaseStorage'),
      },
    ],
    [
      'a namespace import',
      {
        'src/base-storage.ts': base('export'),
        'src/memory-storage.ts': subclass("import * as storages from './base-storage.js';", 'storages.BaseStorage'),
      },
    ],
  ];
  for (const [label, files] of cases) {
    it(`${label}: leaves the base alone and names the subclass`, () => {
      const root = temporaryProject('jscodeshift-subclass', { 'package.json': '{"name":"app"}', ...files });
      const reports: string[] = [];
      const source = files['src/base-storage.ts'] ?? '';
      expect(run(join(root, 'src/base-storage.ts'), source, reports)).toBe(source);
      expect(reports).toEqual([
        expect.stringMatching(
          /^skipped BaseStorage \(line 3\): its subclass MemoryStorage in src\/(?:memory\/)?memory-storage\.ts declares its own save/,
        ),
      ]);
    });
  }
});

describe('the project cases through the jscodeshift transform, one file at a time', () => {
  /** Runs the transform over every source file of a temporary copy of the case's input, as jscodeshift would. */
  function transformProject(name: string): { root: string; reports: string[] } {
    const root = temporaryDirectory(`jscodeshift-${name}`);
    cpSync(join(RECIPE_FIXTURES, name, 'input'), root, { recursive: true });
    const reports: string[] = [];
    for (const file of projectFiles(root).keys()) {
      if (/\.[mc]?tsx?$/.test(file)) {
        const path = join(root, file);
        const source = readFileSync(path, 'utf8');
        const output = transform({ path, source }, { report: (message) => reports.push(`${file}: ${message}`) });
        if (output !== undefined) {
          writeFileSync(path, output);
        }
      }
    }
    return { root, reports };
  }

  /** Cases where a subclass in another file makes the transform leave a base alone (tested below). */
  const refused = new Set([
    'abstract-base-subclass-in-another-file',
    'workspace-packages',
    'pnpm-turborepo-biome',
    'nx-integrated',
  ]);
  for (const { name } of projectCases().filter((candidate) => !refused.has(candidate.name))) {
    it(`${name}: writes what the CLI writes`, () => {
      const { root, reports } = transformProject(name);
      expect(reports).toEqual([]);
      const written = projectFiles(root);
      for (const [file, bytes] of projectFiles(join(RECIPE_FIXTURES, name, 'output'))) {
        expect(written.get(file)?.toString('utf8'), file).toBe(bytes.toString('utf8'));
      }
    });
  }

  // npm workspaces, pnpm-workspace.yaml and Nx's project.json all make one workspace, searched whole for subclasses.
  it.each([
    [
      'workspace-packages',
      'packages/core/src/base-storage.ts',
      'BaseStorage',
      3,
      'packages/app/src/audited-storage.ts',
    ],
    [
      'pnpm-turborepo-biome',
      'packages/core/src/table-checkpoint-storage.ts',
      'TableCheckpointStorage',
      4,
      'apps/worker/src/audited-checkpoint-storage.ts',
    ],
    [
      'nx-integrated',
      'libs/checkpoints/src/lib/memory-checkpoint-storage.ts',
      'MemoryCheckpointStorage',
      3,
      'apps/projector/src/app/cached-checkpoint-storage.ts',
    ],
  ])(
    '%s: refuses a base whose subclass in another workspace package overrides its save, naming the subclass',
    (name, base, baseClass, line, subclass) => {
      const { root, reports } = transformProject(name);
      const subclassName = /export class (\w+)/.exec(readFileSync(join(root, subclass), 'utf8'))?.[1] ?? '';
      expect(reports).toEqual([
        `${base}: skipped ${baseClass} (line ${line}): its subclass ${subclassName} in ${subclass} declares its own save, which this transform cannot rename along with this class's; run \`npx checkpoint-fencing-codemod upgrade\`, which upgrades both.`,
      ]);
      const written = projectFiles(root);
      const input = projectFiles(join(RECIPE_FIXTURES, name, 'input'));
      const output = projectFiles(join(RECIPE_FIXTURES, name, 'output'));
      expect(written.get(base)).toEqual(input.get(base));
      expect(written.get(subclass)).toEqual(input.get(subclass));
      // Every other file it changes, it changes as the CLI does.
      for (const [file, bytes] of written) {
        if (!bytes.equals(input.get(file) ?? Buffer.alloc(0))) {
          expect(bytes.toString('utf8'), file).toBe(output.get(file)?.toString('utf8'));
        }
      }
    },
  );

  it('refuses, with a report naming the subclass, a base whose subclass in another file overrides the save it would rename', () => {
    const name = 'abstract-base-subclass-in-another-file';
    const { root, reports } = transformProject(name);
    expect(projectFiles(root)).toEqual(projectFiles(join(RECIPE_FIXTURES, name, 'input')));
    // The subclass's file names no CheckpointStorage, so only the base's report can name it; and it does.
    expect(reports).toEqual([
      "src/sql-checkpoint-store.ts: skipped SqlCheckpointStore (line 4): its subclass PostgresCheckpointStore in src/postgres-checkpoint-store.ts declares its own save, which this transform cannot rename along with this class's; run `npx checkpoint-fencing-codemod upgrade`, which upgrades both.",
    ]);
  });
});
