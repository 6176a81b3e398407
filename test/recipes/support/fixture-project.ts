import { cpSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { builtPackage } from '../../support/built-package.js';
import { temporaryDirectory } from '../../support/temporary-directory.js';

/** The repository root, for paths to fixtures, the runtime and node_modules. */
export const REPO = resolve(import.meta.dirname, '../../..');

/** Where the recipe's before/after cases live. */
export const RECIPE_FIXTURES = join(REPO, 'fixtures/recipes/add-write-conditions');

/**
 * The compiler options every upgraded project must type-check under. `checkpoint-fencing` maps to this repo's runtime
 * source, so a temp copy anywhere on disk type-checks against the current runtime without a build.
 */
export function fixtureCompilerOptions(): Record<string, unknown> {
  return {
    target: 'es2023',
    lib: ['es2023'],
    module: 'nodenext',
    moduleResolution: 'nodenext',
    strict: true,
    noImplicitOverride: true,
    exactOptionalPropertyTypes: true,
    skipLibCheck: true,
    noEmit: true,
    jsx: 'preserve',
    // The runtime source uses Node globals; a temp project has no node_modules of its own.
    types: ['node'],
    typeRoots: [join(REPO, 'node_modules/@types')],
    paths: { 'checkpoint-fencing': [join(REPO, 'runtime/index.ts')] },
  };
}

/**
 * Installs `checkpoint-fencing` in `root/node_modules` as npm would (the built package: declarations, not sources) and
 * returns {@link fixtureCompilerOptions} without the mapping to the sources. Needed where the project's own compiler
 * options must not apply to the runtime's sources, as they never do to a user's (`verbatimModuleSyntax`, for one,
 * rejects the runtime's CommonJS sources: ADR 0707).
 */
export function installBuiltRuntime(root: string): Record<string, unknown> {
  mkdirSync(join(root, 'node_modules'), { recursive: true });
  symlinkSync(builtPackage('runtime'), join(root, 'node_modules/checkpoint-fencing'), 'dir');
  const options = fixtureCompilerOptions();
  delete options['paths'];
  return options;
}

/** A fresh directory under the OS temp dir with a tsconfig using {@link fixtureCompilerOptions}. */
export function makeTempProject(prefix: string): string {
  const root = temporaryDirectory(prefix);
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'fixture-project', private: true, type: 'module' }));
  writeFileSync(
    join(root, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: fixtureCompilerOptions(), include: ['**/*'] }, null, 2),
  );
  return root;
}

/** The single-file cases: `<case>/input.*` beside `<case>/output.*` (project cases have `input/` folders instead). */
export function singleFileCases(): string[] {
  return readdirSync(RECIPE_FIXTURES, { withFileTypes: true })
    .filter(
      (entry) =>
        entry.isDirectory() && readdirSync(join(RECIPE_FIXTURES, entry.name)).some((file) => file.startsWith('input.')),
    )
    .map((entry) => entry.name)
    .sort();
}

/** Copies every single-file case's files except its expected outputs into `root/<case>/`; returns the case names. */
export function copyRecipeCases(root: string): string[] {
  const cases = singleFileCases();
  for (const name of cases) {
    cpSync(join(RECIPE_FIXTURES, name), join(root, name), {
      recursive: true,
      filter: (source) => !/[\\/]output\.[^\\/]+$/.test(source),
    });
  }
  return cases;
}

/** Copies `fixtures/legacy-app` into `root`, pointing its `checkpoint-fencing` path mapping at this repo's runtime. */
export function copyLegacyApp(root: string): void {
  cpSync(join(REPO, 'fixtures/legacy-app'), root, { recursive: true });
  writeFileSync(
    join(root, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: fixtureCompilerOptions(), include: ['src'] }, null, 2),
  );
}

/** Runs the repo's TypeScript (`tsc --noEmit`) on `project`; returns its output, empty when it type-checks. */
export function typeCheck(project: string): string {
  try {
    execFileSync(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', project], {
      encoding: 'utf8',
      stdio: 'pipe',
    });
    return '';
  } catch (error) {
    const failure = error as { stdout?: string; stderr?: string };
    return `${failure.stdout ?? ''}${failure.stderr ?? ''}` || String(error);
  }
}
