import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import type * as ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { builtPackage } from '../support/built-package.js';
import { installedPackages } from '../support/installed-packages.js';
import { temporaryDirectory } from '../support/temporary-directory.js';
import { copyRecipeCases } from '../recipes/support/fixture-project.js';
import { codeBlocks, docSections, documentedRuleNames, ruleDoc } from './rule-docs.js';

const REPO = join(import.meta.dirname, '../..');
const pinned = (
  JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }
).devDependencies;

/** One TypeScript, one typescript-eslint parser and one ESLint, installed from the registry. */
interface Cell {
  readonly typescript: string;
  readonly parser: string;
  readonly eslint: string;
}

// Every TypeScript line, from its oldest release, with the parser and ESLint this repository pins; then every parser
// major from the oldest release the range admits, with one TypeScript all of them support, on ESLint 8 (8.56.0, the
// range's oldest, for parser 5.62.0; 8.57.0 for 6.0.0 and 7.0.0) and 9.0.0 for parser 8.0.0, so that each ESLint major
// of the range is linted on too. Every combination would be 25 installs, and each axis varies alone here. ESLint 8.56
// reads a flat config only from eslint.config.js, the name written here.
const PINNED: Cell = {
  typescript: pinned.typescript ?? '',
  parser: pinned['@typescript-eslint/parser'] ?? '',
  eslint: pinned.eslint ?? '',
};
const TYPESCRIPT_LINES = ['4.8.4', '5.0.2', '5.4.2', '5.9.2', '6.0.2'];
const cells: readonly Cell[] = [
  ...TYPESCRIPT_LINES.map((typescript) => ({ ...PINNED, typescript })),
  { typescript: '5.0.2', parser: '5.62.0', eslint: '8.56.0' },
  { typescript: '5.0.2', parser: '6.0.0', eslint: '8.57.0' },
  { typescript: '5.0.2', parser: '7.0.0', eslint: '8.57.0' },
  { typescript: '5.0.2', parser: '8.0.0', eslint: '9.0.0' },
];

/** Options every TypeScript of the range reads alike; 6.0 would reject several older defaults. */
const COMPILER_OPTIONS = {
  target: 'es2020',
  lib: ['es2020'],
  module: 'nodenext',
  moduleResolution: 'nodenext',
  strict: true,
  skipLibCheck: true,
  noEmit: true,
  types: [],
  allowJs: true,
  checkJs: true,
  jsx: 'preserve',
};

// `project`, not `projectService`: typescript-eslint 5 to 7 do not have the service.
const ESLINT_CONFIG = `import parser from '@typescript-eslint/parser';
import checkpointFencing from 'eslint-plugin-checkpoint-fencing';

export default [
  {
    files: ['**/*.{ts,tsx,mts,cts,js}'],
    languageOptions: {
      parser,
      parserOptions: { project: './tsconfig.json', tsconfigRootDir: new URL('.', import.meta.url).pathname },
    },
  },
  checkpointFencing.configs['recommended-type-checked'],
];
`;

/**
 * The plugin's typed fixtures, by their path in the linted project: the legacy app, the wrong and right examples of
 * every rule doc, and the upgrade's single-file cases.
 */
function writeFixtures(root: string): void {
  cpSync(join(REPO, 'fixtures/legacy-app/src'), join(root, 'app/src'), { recursive: true });
  cpSync(join(REPO, 'fixtures/legacy-app/package.json'), join(root, 'app/package.json'));
  mkdirSync(join(root, 'docs'));
  for (const rule of documentedRuleNames()) {
    for (const section of ['Wrong', 'Right']) {
      codeBlocks(docSections(ruleDoc(rule)).get(section) ?? '').forEach((code, index) => {
        writeFileSync(join(root, 'docs', `${rule}.${section.toLowerCase()}-${index}.ts`), code);
      });
    }
  }
  mkdirSync(join(root, 'recipes'));
  copyRecipeCases(join(root, 'recipes'));
}

/** The files under `root` TypeScript compiles, relative to it. */
function sourceFiles(root: string): string[] {
  return readdirSync(root, { recursive: true, encoding: 'utf8' }).filter(
    (file) => /\.(?:[cm]?ts|tsx|js)$/u.test(file) && !file.endsWith('.d.ts') && !file.startsWith('node_modules'),
  );
}

/**
 * The fixture files `typescript` cannot parse: syntax newer than it (`satisfies` is TypeScript 4.9's). They are
 * left out of that cell's project, and of the reference it is compared with, since types flow between files.
 */
function unparsable(root: string, typescript: typeof ts): string[] {
  return sourceFiles(root).filter(
    (file) =>
      (
        typescript.transpileModule(readFileSync(join(root, file), 'utf8'), {
          fileName: file,
          reportDiagnostics: true,
          compilerOptions: { allowJs: true, jsx: typescript.JsxEmit.Preserve },
        }).diagnostics ?? []
      ).length > 0,
  );
}

interface Lint {
  readonly status: number | null;
  readonly stderr: string;
  readonly findings: readonly string[];
  readonly seconds: number;
}

/**
 * The project a cell lints: the fixtures but `leftOut`, one tsconfig over them all, and in its node_modules the
 * cell's ESLint, parser and TypeScript from `install`, and the plugin and runtime built from this checkout.
 */
function project(install: string, leftOut: readonly string[] = []): string {
  const root = temporaryDirectory('lint-matrix');
  writeFixtures(root);
  leaveOut(root, leftOut);
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'lint-matrix', private: true, type: 'module' }));
  writeFileSync(
    join(root, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: COMPILER_OPTIONS, include: ['app', 'docs', 'recipes'] }),
  );
  writeFileSync(join(root, 'eslint.config.js'), ESLINT_CONFIG);
  const links: Record<string, string> = {
    eslint: join(install, 'node_modules/eslint'),
    typescript: join(install, 'node_modules/typescript'),
    '@typescript-eslint/parser': join(install, 'node_modules/@typescript-eslint/parser'),
    'eslint-plugin-checkpoint-fencing': builtPackage('eslint-plugin'),
    'checkpoint-fencing': builtPackage('runtime'),
  };
  for (const [name, target] of Object.entries(links)) {
    mkdirSync(dirname(join(root, 'node_modules', name)), { recursive: true });
    symlinkSync(target, join(root, 'node_modules', name), 'dir');
  }
  return root;
}

function leaveOut(root: string, files: readonly string[]): void {
  for (const file of files) {
    rmSync(join(root, file));
  }
}

/** Lints `root` with its own ESLint: `file:line:column rule` of every message, sorted. */
function lint(root: string): Lint {
  const started = performance.now();
  const result = spawnSync(
    process.execPath,
    [join(root, 'node_modules/eslint/bin/eslint.js'), '--format', 'json', 'app', 'docs', 'recipes'],
    { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  const seconds = (performance.now() - started) / 1000;
  const results =
    result.status === 2
      ? []
      : (JSON.parse(result.stdout) as {
          filePath: string;
          messages: { ruleId: string | null; line: number; column: number; message: string }[];
        }[]);
  const findings = results
    .flatMap((file) =>
      file.messages.map(
        (message) =>
          `${relative(root, file.filePath)}:${message.line}:${message.column} ${message.ruleId ?? message.message}`,
      ),
    )
    .sort();
  return { status: result.status, stderr: result.stderr, findings, seconds };
}

/** The findings on this repository's pinned ESLint, parser and TypeScript, by the files left out. */
const references = new Map<string, Lint>();

function reference(leftOut: readonly string[]): Lint {
  const key = leftOut.join('\n');
  const known = references.get(key);
  if (known !== undefined) {
    return known;
  }
  const result = lint(project(REPO, leftOut));
  references.set(key, result);
  return result;
}

const timings: string[] = [];

describe('typed lint of the plugin’s fixtures on every TypeScript line and parser major', { timeout: 600_000 }, () => {
  afterAll(() => {
    console.info(`seconds per lint (install not counted):\n${timings.join('\n')}`);
  });

  it.for(cells)(
    'TypeScript $typescript, @typescript-eslint/parser $parser, ESLint $eslint: no crash, no warning, the findings of this repository’s pins',
    (cell) => {
      const install = installedPackages({
        typescript: cell.typescript,
        '@typescript-eslint/parser': cell.parser,
        eslint: cell.eslint,
      });
      const typescript = createRequire(join(install, 'package.json'))('typescript') as typeof ts;
      expect(typescript.version).toBe(cell.typescript);
      const root = project(install);
      const leftOut = unparsable(root, typescript);
      leaveOut(root, leftOut);
      const expected = reference(leftOut);
      const actual = lint(root);
      timings.push(
        `  TypeScript ${cell.typescript}, parser ${cell.parser}, ESLint ${cell.eslint}: ${actual.seconds.toFixed(2)} ` +
          `(pinned versions on the same files: ${expected.seconds.toFixed(2)}); left out: ${leftOut.join(', ') || 'none'}`,
      );
      expect(actual.stderr).toBe('');
      expect(actual.status).toBe(1);
      expect(actual.findings).toEqual(expected.findings);
      // Only types find the Postgres subclass's save, which it inherits its interface for: the cell had types.
      expect(actual.findings).toContain(
        'app/src/storages/postgres-checkpoint-storage.ts:10:9 checkpoint-fencing/no-ignored-write-condition',
      );
    },
  );

  it('the plugin README names the versions linted here beside each peer range', () => {
    const readme = readFileSync(join(REPO, 'eslint-plugin/README.md'), 'utf8');
    const tested = (name: string): string[] =>
      (new RegExp(`^\\| \`${name}\`.*\\| ([\\d., ]+?) *\\|$`, 'mu').exec(readme)?.[1] ?? '').split(', ');
    // The cells', and the pinned versions the reference runs on.
    const versions = (pick: (cell: Cell) => string): string[] =>
      [...new Set([...cells, PINNED].map(pick))].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
    expect(tested('eslint')).toEqual(versions((cell) => cell.eslint));
    expect(tested('typescript')).toEqual(versions((cell) => cell.typescript));
    expect(tested('@typescript-eslint/parser')).toEqual(versions((cell) => cell.parser));
  });
});
