import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { temporaryProject } from '../support/temporary-directory.js';
import { workspaceFolders } from '../support/workspace-packages.js';

// Files that import one another in a circle cannot be read, tested or moved one at a time. Type-only imports count,
// since the circle is in the design whether or not it survives compilation, and so do re-exports, dynamic imports and
// `require`: TypeScript's pre-processor lists every module a file names, and its resolver finds the file the compiler
// would. Packages are found as npm finds them, from the root package.json's workspaces, so a new one is checked too.

const REPOSITORY = resolve(import.meta.dirname, '../..');

/** The folders with code that are not workspace packages: shared names, tools, benchmarks, examples, tests. */
const NON_PACKAGE_FOLDERS = ['vocabulary', 'tools', 'bench', 'examples', 'build', 'test'];

/**
 * The lint plugin's layers, lowest first (doc/adr/0313): the syntax helpers and shared answers, the speed gates, the
 * recognisers, the fixes the rules suggest, the rules. A file imports from its own layer and those below it, never
 * from one above.
 */
const PLUGIN_LAYERS = [
  'eslint-plugin/analysis',
  'eslint-plugin/analysis/gates',
  'eslint-plugin/analysis/recognisers',
  'eslint-plugin/fixes',
  'eslint-plugin/rules',
];

/** Build output, dependencies, and the users' code the tools are run on. */
const NOT_OUR_SOURCE = new Set(['node_modules', 'dist', 'fixtures', '.tmp']);

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) =>
    NOT_OUR_SOURCE.has(entry.name)
      ? []
      : entry.isDirectory()
        ? sourceFiles(join(directory, entry.name))
        : /\.[cm]?[jt]sx?$/u.test(entry.name)
          ? [join(directory, entry.name)]
          : [],
  );
}

/** Each file's imports, as the paths they resolve to under the repository's compiler options. */
function resolvedImports(root: string, files: readonly string[]): Map<string, string[]> {
  const base = ts.readConfigFile(join(root, 'tsconfig.base.json'), (path) => ts.sys.readFile(path)).config as {
    compilerOptions: unknown;
  };
  const options = { ...ts.convertCompilerOptionsFromJson(base.compilerOptions, root).options, allowJs: true };
  const cache = ts.createModuleResolutionCache(root, (name) => name, options);
  return new Map(
    files.map((file) => [
      file,
      ts
        .preProcessFile(readFileSync(file, 'utf8'), true, true)
        .importedFiles.flatMap(
          ({ fileName }) =>
            ts.resolveModuleName(fileName, file, options, ts.sys, cache).resolvedModule?.resolvedFileName ?? [],
        ),
    ]),
  );
}

/** Every circle found by a depth-first walk, each as the names along it. */
function cycles(graph: ReadonlyMap<string, readonly string[]>, name: (node: string) => string): string[][] {
  const found: string[][] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (node: string): void => {
    const onPath = path.indexOf(node);
    if (onPath !== -1) {
      found.push(path.slice(onPath).map(name));
      return;
    }
    if (done.has(node)) {
      return;
    }
    path.push(node);
    for (const target of graph.get(node) ?? []) {
      visit(target);
    }
    path.pop();
    done.add(node);
  };
  for (const node of graph.keys()) {
    visit(node);
  }
  return found;
}

/** Every import of the repository's code, from the workspace packages and the other folders with code. */
function repositoryImports(root: string): Map<string, string[]> {
  const folders = [...workspaceFolders(root), ...NON_PACKAGE_FOLDERS].map((folder) => join(root, folder));
  return resolvedImports(root, folders.filter(existsSync).flatMap(sourceFiles));
}

/**
 * The circles of imports between the repository's source files, and between its packages: a package that imports
 * another by name reaches its build, which no file-level circle shows.
 */
function importCircles(root: string, imports: ReadonlyMap<string, readonly string[]>) {
  const packages = workspaceFolders(root);
  const ours = new Set(imports.keys());
  const fileGraph = new Map([...imports].map(([file, targets]) => [file, targets.filter((t) => ours.has(t))]));
  const packageOf = (path: string): string | undefined =>
    packages.find((folder) => relative(join(root, folder), path).split(sep)[0] !== '..');
  const packageGraph = new Map(packages.map((folder) => [folder, [] as string[]]));
  for (const [file, targets] of imports) {
    const from = packageOf(file) ?? '';
    packageGraph.get(from)?.push(...targets.flatMap((target) => packageOf(target) ?? []).filter((to) => to !== from));
  }
  return {
    files: cycles(fileGraph, (file) => relative(root, file)),
    packages: cycles(packageGraph, (folder) => folder),
  };
}

/** Each import from a file of one of `layers` (a folder's own files) to a file of a higher one. */
function upwardImports(root: string, imports: ReadonlyMap<string, readonly string[]>, layers: readonly string[]) {
  const layerOf = (file: string): number => layers.indexOf(relative(root, dirname(file)));
  return [...imports].flatMap(([file, targets]) =>
    targets
      .filter((target) => layerOf(file) !== -1 && layerOf(target) > layerOf(file))
      .map((target) => `${relative(root, file)} imports ${relative(root, target)}`),
  );
}

describe('the repository’s modules', () => {
  it('import one another in no circle, within a package or across packages', () => {
    for (const folder of [...workspaceFolders(REPOSITORY), ...NON_PACKAGE_FOLDERS]) {
      expect(existsSync(join(REPOSITORY, folder)), `${folder} is gone: update NON_PACKAGE_FOLDERS`).toBe(true);
    }
    expect(importCircles(REPOSITORY, repositoryImports(REPOSITORY))).toEqual({ files: [], packages: [] });
  });

  it('in the lint plugin, import from their own layer and those below it, never from one above', () => {
    expect(upwardImports(REPOSITORY, repositoryImports(REPOSITORY), PLUGIN_LAYERS)).toEqual([]);
  });

  it('are found through type-only, dynamic and require imports, and between packages through their names', () => {
    const root = temporaryProject('import-circles', {
      'package.json': JSON.stringify({ workspaces: ['packages/*'] }),
      'tsconfig.base.json': JSON.stringify({ compilerOptions: { module: 'nodenext' } }),
      'packages/a/types.ts': "import type { B } from './b.js';\nexport interface A {\n  b: B;\n}\n",
      'packages/a/b.ts': "import type { A } from './types.js';\nexport type B = A[];\n",
      'packages/a/lazy.ts': "export const load = () => import('./eager.js');\n",
      'packages/a/eager.ts': "export { load } from './lazy.js';\n",
      'packages/a/required.cts': "export = require('./requiring.cjs');\n",
      'packages/a/requiring.cts': "export = require('./required.cjs');\n",
      'packages/d/package.json': JSON.stringify({ name: 'd', exports: './dist/index.js' }),
      'packages/d/index.ts': "export * from 'e';\n",
      'packages/d/dist/index.d.ts': 'export {};\n',
      'packages/e/package.json': JSON.stringify({ name: 'e', exports: './dist/index.js' }),
      'packages/e/index.ts': "export type { D } from 'd';\n",
      'packages/e/dist/index.d.ts': 'export {};\n',
    });
    mkdirSync(join(root, 'node_modules'));
    symlinkSync(join(root, 'packages/d'), join(root, 'node_modules/d'));
    symlinkSync(join(root, 'packages/e'), join(root, 'node_modules/e'));
    const circles = importCircles(root, repositoryImports(root));
    expect(circles.files.map((circle) => circle.toSorted().join(' ')).toSorted()).toEqual([
      'packages/a/b.ts packages/a/types.ts',
      'packages/a/eager.ts packages/a/lazy.ts',
      'packages/a/required.cts packages/a/requiring.cts',
    ]);
    expect(circles.packages.map((circle) => circle.toSorted().join(' '))).toEqual(['packages/d packages/e']);
  });

  it('are found importing from a layer above their own', () => {
    const root = temporaryProject('import-layers', {
      'package.json': JSON.stringify({ workspaces: ['plugin'] }),
      'tsconfig.base.json': JSON.stringify({ compilerOptions: { module: 'nodenext' } }),
      'plugin/gates/gate.ts':
        "import { recognise } from '../recognisers/recogniser.js';\nexport const gate = recognise;\n",
      'plugin/recognisers/recogniser.ts':
        "import type { Gate } from '../gates/types.js';\nexport const recognise = (g: Gate) => g;\n",
      'plugin/gates/types.ts': 'export type Gate = number;\n',
    });
    expect(upwardImports(root, repositoryImports(root), ['plugin/gates', 'plugin/recognisers'])).toEqual([
      'plugin/gates/gate.ts imports plugin/recognisers/recogniser.ts',
    ]);
  });
});
