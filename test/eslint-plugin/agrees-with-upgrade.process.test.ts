import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { AST_NODE_TYPES } from '@typescript-eslint/types';
import tsParser, { parse } from '@typescript-eslint/parser';
import type { TSESTree } from '@typescript-eslint/utils';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { declaredTypeOfLiteral } from '../../eslint-plugin/analysis/recognisers/index.js';
import plugin from '../../eslint-plugin/index.js';
import { upgrade } from '../../recipes/index.js';
import {
  copyLegacyApp,
  copyRecipeCases,
  fixtureCompilerOptions,
  makeTempProject,
  RECIPE_FIXTURES,
  singleFileCases,
} from '../recipes/support/fixture-project.js';
import { copyProjectCase, projectCases } from '../recipes/support/project-case.js';

const RULE = 'checkpoint-fencing/no-ignored-write-condition';
const SOURCES = ['**/*.ts', '**/*.tsx', '**/*.mts', '**/*.cts'];
const JAVASCRIPT_SOURCES = ['**/*.js'];

type StorageNode = TSESTree.ClassDeclaration | TSESTree.ClassExpression | TSESTree.ObjectExpression;

/** `file:line` of every class and object literal in `text`, with the ranges reports about each can fall in. */
function storageNodes(text: string, jsx: boolean): { line: number; ranges: (readonly [number, number])[] }[] {
  const program = parse(text, { range: true, loc: true, jsx });
  const found: { line: number; ranges: (readonly [number, number])[] }[] = [];
  const visit = (node: TSESTree.Node, parent: TSESTree.Node | undefined): void => {
    (node as { parent?: TSESTree.Node | undefined }).parent = parent;
    for (const value of Object.values(node)) {
      for (const child of Array.isArray(value) ? value : [value]) {
        if (
          typeof child === 'object' &&
          child !== null &&
          'type' in child &&
          child !== parent &&
          child !== node.parent
        ) {
          visit(child as TSESTree.Node, node);
        }
      }
    }
    if (
      node.type === AST_NODE_TYPES.ClassDeclaration ||
      node.type === AST_NODE_TYPES.ClassExpression ||
      node.type === AST_NODE_TYPES.ObjectExpression
    ) {
      const storage: StorageNode = node;
      const declared = storage.type === AST_NODE_TYPES.ObjectExpression ? declaredTypeOfLiteral(storage) : undefined;
      found.push({
        line: storage.loc.start.line,
        ranges: [storage.range, ...(declared === undefined ? [] : [declared.range])],
      });
    }
  };
  visit(program, undefined);
  return found;
}

/** The storages type-aware `no-ignored-write-condition` reports under `root`, as `file:line` of each storage. */
async function reportedStorages(
  root: string,
  sources: readonly string[] = SOURCES,
  useTypeInformation = true,
): Promise<string[]> {
  const eslint = new ESLint({
    cwd: root,
    errorOnUnmatchedPattern: false,
    overrideConfigFile: true,
    overrideConfig: [
      {
        files: [...sources],
        languageOptions: { parser: tsParser, parserOptions: { projectService: true, tsconfigRootDir: root } },
        plugins: { 'checkpoint-fencing': plugin },
        rules: { [RULE]: ['error', { useTypeInformation }] },
      },
    ],
  });
  const reported = new Set<string>();
  for (const result of await eslint.lintFiles([...sources])) {
    const fatal = result.messages.find((message) => message.ruleId !== RULE);
    if (fatal !== undefined) {
      throw new Error(`${result.filePath}:${fatal.line}: ${fatal.message}`);
    }
    if (result.messages.length === 0) {
      continue;
    }
    const text = readFileSync(result.filePath, 'utf8');
    const offsets = text
      .split('\n')
      .reduce<number[]>((starts, line) => [...starts, (starts.at(-1) ?? 0) + line.length + 1], [0]);
    const nodes = storageNodes(text, result.filePath.endsWith('x'));
    for (const message of result.messages) {
      const offset = (offsets[message.line - 1] ?? 0) + message.column - 1;
      const owner = nodes.filter(({ ranges }) => ranges.some(([start, end]) => start <= offset && offset < end)).at(-1);
      reported.add(`${relative(root, result.filePath)}:${String(owner?.line ?? `?${message.line}`)}`);
    }
  }
  return [...reported].sort();
}

/** The storages the upgrade would change under `root`, as `file:line`. */
async function upgradedStorages(root: string): Promise<string[]> {
  const report = await upgrade({ cwd: root, mode: 'check' });
  return report.implementers
    .filter((implementer) => implementer.membersAdded.length > 0 || implementer.shape === 'follows-base')
    .map((implementer) => `${relative(root, implementer.file)}:${implementer.line}`)
    .sort();
}

/** A temp project that type-checks JavaScript too, as a project with `allowJs` and `checkJs` does. */
function makeJavaScriptProject(prefix: string): string {
  const root = makeTempProject(prefix);
  writeFileSync(
    join(root, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { ...fixtureCompilerOptions(), allowJs: true, checkJs: true },
      include: ['**/*'],
    }),
  );
  return root;
}

/** Storages only a type-aware reader recognises, in TypeScript and in JavaScript. */
function makeShapesProject(): string {
  const root = makeJavaScriptProject('agreement-shapes');
  writeFileSync(
    join(root, 'type-shapes.ts'),
    `import type { CheckpointStorage } from 'checkpoint-fencing';
interface Closeable { close(): Promise<void> }
export const joined: CheckpointStorage & Closeable = {
  read: async () => undefined,
  save: async (id: string, cp: string) => cp,
  delete: async () => {},
  close: async () => {},
};
export const frozen: Readonly<CheckpointStorage> = {
  read: async () => undefined,
  save: async (id: string, cp: string) => cp,
  delete: async () => {},
};
export class ThisParameterStorage implements CheckpointStorage {
  async read() { return undefined; }
  async save(this: ThisParameterStorage, id: string, cp: string) { return cp; }
  async delete() {}
}
`,
  );
  writeFileSync(
    join(root, 'jsdoc-shapes.js'),
    `/** @import { CheckpointStorage } from 'checkpoint-fencing' */
/** @implements {CheckpointStorage} */
export class JsDocStorage {
  /** @param {string} id */
  async read(id) { return id; }
  /** @param {string} id @param {string} cp */
  async save(id, cp) { return cp; }
  /** @param {string} id */
  async delete(id) {}
}
/** @type {CheckpointStorage} */
export const typed = {
  read: async (id) => id,
  save: async (id, cp) => cp,
  delete: async (id) => {},
};
`,
  );
  return root;
}

const corpora: readonly (readonly [label: string, makeRoot: () => string, sources?: readonly string[]])[] = [
  [
    'every single-file recipe fixture',
    () => {
      const root = makeTempProject('agreement-fixtures');
      copyRecipeCases(root);
      return root;
    },
  ],
  [
    'the legacy app',
    () => {
      const root = makeTempProject('agreement-legacy-app');
      copyLegacyApp(root);
      return root;
    },
  ],
  ...projectCases().map(
    (projectCase) => [`project case ${projectCase.name}`, () => copyProjectCase(projectCase)] as const,
  ),
  [
    'intersections, Readonly<>, a this parameter, JSDoc @implements and @type under allowJs',
    makeShapesProject,
    [...SOURCES, ...JAVASCRIPT_SOURCES],
  ],
];

// Linting with types builds a program per project; on a loaded two-core machine that takes tens of seconds.
describe('type-aware no-ignored-write-condition and the upgrade agree', { timeout: 240_000 }, () => {
  for (const [label, makeRoot, sources = SOURCES] of corpora) {
    it(`${label}: the rule reports a storage exactly when the upgrade changes it, and after the upgrade reports nothing`, async () => {
      const root = makeRoot();
      const reported = await reportedStorages(root, sources);
      expect(reported.length).toBeGreaterThan(0);
      expect(reported).toEqual(await upgradedStorages(root));
      // Each message promises that `npx checkpoint-fencing-codemod upgrade` adds what is missing: after it, nothing is left.
      await upgrade({ cwd: root });
      expect(await reportedStorages(root, sources)).toEqual([]);
    });
  }
});

// In JavaScript the jscodeshift transform is a second front end, syntactic like the rule without types; its
// fixtures' outputs are what it writes (add-write-conditions-jscodeshift.test.ts holds it to them).
describe(
  'no-ignored-write-condition, with and without types, and the jscodeshift transform agree on JavaScript',
  { timeout: 240_000 },
  () => {
    it('every JavaScript recipe fixture is reported exactly when the transform changes it, and its output is not', async () => {
      const root = makeJavaScriptProject('agreement-javascript');
      const cases = singleFileCases().filter((name) => existsSync(join(RECIPE_FIXTURES, name, 'input.js')));
      expect(cases.length).toBeGreaterThan(0);
      const fixture = (name: string, side: 'input' | 'output'): string =>
        readFileSync(join(RECIPE_FIXTURES, name, `${side}.js`), 'utf8');
      const write = (side: 'input' | 'output'): void => {
        for (const name of cases) {
          writeFileSync(join(root, `${name}.js`), fixture(name, side));
        }
      };
      const changed = cases.filter((name) => fixture(name, 'input') !== fixture(name, 'output'));
      for (const useTypeInformation of [true, false]) {
        write('input');
        const reported = await reportedStorages(root, JAVASCRIPT_SOURCES, useTypeInformation);
        const reportedFiles = [...new Set(reported.map((storage) => storage.split(':')[0]))];
        expect(reportedFiles, `useTypeInformation: ${String(useTypeInformation)}`).toEqual(
          changed.map((name) => `${name}.js`),
        );
        write('output');
        expect(await reportedStorages(root, JAVASCRIPT_SOURCES, useTypeInformation)).toEqual([]);
      }
    });
  },
);

describe('the agreement check itself', () => {
  it('maps a report on a literal’s declared return type to that literal', () => {
    const text = 'function make(): CheckpointStorage {\n  return {\n    save: async (a, b) => b,\n  };\n}\n';
    const [literal] = storageNodes(text, false);
    expect(literal?.line).toBe(2);
    expect(
      literal?.ranges.some(
        ([start, end]) => start <= text.indexOf('CheckpointStorage') && text.indexOf('CheckpointStorage') < end,
      ),
    ).toBe(true);
  });

  it('sees every project case', () => {
    expect(projectCases().map((projectCase) => projectCase.name)).toEqual(
      expect.arrayContaining([
        'abstract-base-subclass-in-another-file',
        'commonjs-node10',
        'prettier-80-columns',
        'solution-style-tsconfig',
      ]),
    );
  });
});
