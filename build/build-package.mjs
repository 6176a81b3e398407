#!/usr/bin/env node
// @ts-check
// Builds one workspace package: `node build/build-package.mjs <runtime|eslint-plugin|recipes|operator> [--into <folder>]
// [--runtime <folder>]`. Plain JavaScript, so that a fresh clone builds with nothing built before it. `--into` writes
// the package's package.json and dist/ (and the plugin's doc/) under another folder: the tests build a copy of the
// current sources there. `--runtime` names the built checkpoint-fencing the operator is compiled against (runtime/ by
// default).
//
// runtime: a CommonJS package. One CommonJS implementation in dist/cjs; in dist/esm, an .mjs for each entry that
// re-exports its CommonJS twin by name, and the only ES modules of their own, the conformance kits and the bin, which
// import the runtime through those entries. Whichever way a project or a tool loads the package, there is one copy of
// every class (doc/adr/0707).
// eslint-plugin: one CommonJS file bundled by esbuild, dist/eslint-plugin/index.cjs, which `require()` returns the
// plugin from (eslintrc loads plugins so, and Yarn Plug'n'Play resolves only CommonJS `require`s), and an ES module
// entry beside it that re-exports that same object; tsc writes only the declarations (doc/adr/0316).
// recipes and operator: one ESM build each (the operator, a bin, declares nothing). The operator imports
// the runtime by name and runs against the one installed with it, so it is compiled against a built runtime's
// declarations, never its sources, which it must not ship.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, posix, relative, resolve } from 'node:path';
import process from 'node:process';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';

const repository = resolve(import.meta.dirname, '..');
const tsc = join(repository, 'node_modules/typescript/bin/tsc');

/** The runtime's entries, by module path: `.`, `./dual-anchor` and `./store-layout`. */
const RUNTIME_ENTRIES = ['runtime/index', 'runtime/dual-anchor-entry', 'runtime/store-layout-entry'];
/** The runtime's ES modules of their own: the kits, the bin, and the vocabulary the bin prints names from. */
const ESM_ONLY = /^(?:runtime\/testing\/|runtime\/moved-commands-bin\.|vocabulary\/)/u;
/** A relative module specifier after `from`, `import` or `import(`, in JavaScript or declarations. */
const RELATIVE_SPECIFIER = /(\bfrom\s*|\bimport\s*(?:\(\s*)?)(['"])(\.{1,2}\/[^'"]*)\2/gu;

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { into: { type: 'string' }, runtime: { type: 'string' } },
});
const [name] = positionals;
if (name !== 'runtime' && name !== 'eslint-plugin' && name !== 'recipes' && name !== 'operator') {
  throw new Error(
    `build-package: unknown package folder ${JSON.stringify(name)}; give runtime, eslint-plugin, recipes or operator.`,
  );
}
const source = join(repository, name);
const root = values.into === undefined ? source : resolve(values.into);
const dist = join(root, 'dist');
rmSync(dist, { recursive: true, force: true });
if (root !== source) {
  // Elsewhere, the build is a package of its own, whose "type" says how Node loads what the build writes and runs.
  cpSync(join(source, 'package.json'), join(root, 'package.json'));
}

if (name === 'runtime') {
  compile('tsconfig.cjs.json', join(dist, 'cjs'));
  reExportEntries(dist);
  const staging = mkdtempSync(join(tmpdir(), 'checkpoint-fencing-esm-'));
  compile('tsconfig.esm.json', staging);
  keepEsmOnlyModules(staging, dist);
  rmSync(staging, { recursive: true, force: true });
} else if (name === 'operator') {
  const config = configResolvingRuntime(resolve(values.runtime ?? join(repository, 'runtime')));
  compile(config, dist);
  rmSync(dirname(config), { recursive: true, force: true });
} else {
  compile('tsconfig.build.json', dist);
}
if (name === 'recipes') {
  compile('tsconfig.runtime-declarations.json', dist);
}
if (name === 'eslint-plugin') {
  await bundlePlugin(join(dist, 'eslint-plugin'));
  // The rule docs ship in the plugin, where each rule's meta.docs.url points (doc/adr/0303).
  rmSync(join(root, 'doc'), { recursive: true, force: true });
  cpSync(join(repository, 'doc/rules'), join(root, 'doc/rules'), { recursive: true });
}

/**
 * Runs tsc on the package's `config` (a path from the package's folder), writing to `outDir`.
 * @param {string} config
 * @param {string} outDir
 */
function compile(config, outDir) {
  execFileSync(process.execPath, [tsc, '-p', resolve(source, config), '--outDir', outDir], { stdio: 'inherit' });
}

/**
 * Writes the plugin's one implementation into `folder` (dist/eslint-plugin, beside tsc's declarations): `index.cjs`,
 * its sources and the vocabulary bundled, its dependencies left to `require`, with a map that carries its sources
 * (doc/adr/0705); `index.js`, the ES module entry, which imports that file, so that `import` and `require` give one
 * plugin object; and `index.d.cts`, the CommonJS entry's types: the plugin and, in its namespace, the public types.
 * @param {string} folder
 */
async function bundlePlugin(folder) {
  await build({
    stdin: {
      contents: "import plugin from './index.js';\nexport = plugin;\n",
      loader: 'ts',
      resolveDir: source,
      sourcefile: 'commonjs-entry.ts',
    },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    packages: 'external',
    // The one `import.meta` is vocabulary's createRequire, which takes a file path as well as a URL.
    define: { 'import.meta.url': '__filename' },
    outfile: join(folder, 'index.cjs'),
    sourcemap: true,
    sourcesContent: true,
    logLevel: 'warning',
  });
  writeFileSync(
    join(folder, 'index.js'),
    "import plugin from './index.cjs';\n\nexport const { rules, configs } = plugin;\nexport default plugin;\n",
  );
  // `export =` leaves no room for named exports beside it: the public types go into a namespace merged with the plugin,
  // so that `import type { RuleName } from 'eslint-plugin-checkpoint-fencing'` works from CommonJS as from ESM.
  const types = readFileSync(join(folder, 'plugin-types.d.ts'), 'utf8');
  if (/^(?:import\b|export (?!type |interface ))/mu.test(types)) {
    throw new Error(
      'build-package: eslint-plugin/plugin-types.ts must export types and interfaces only, with no import: its ' +
        'declarations are copied into the namespace of the CommonJS entry’s types (doc/adr/0316).',
    );
  }
  writeFileSync(
    join(folder, 'index.d.cts'),
    `declare const plugin: plugin.CheckpointFencingPlugin;\ndeclare namespace plugin {\n${types}}\nexport = plugin;\n`,
  );
}

/**
 * A temporary tsconfig: the package's tsconfig.build.json, with `checkpoint-fencing` and each of its subpaths mapped to
 * the declarations its `exports` name in the built runtime at `runtime`, wherever that is (this repository's runtime/,
 * or a test's build of it), as a project with it installed would resolve them.
 * @param {string} runtime
 * @returns {string}
 */
function configResolvingRuntime(runtime) {
  /** @type {unknown} */
  const parsed = JSON.parse(readFileSync(join(runtime, 'package.json'), 'utf8'));
  /** @typedef {{ types: string }} Typed */
  const manifest = /** @type {{ name: string; exports: Record<string, string | Typed | { import: Typed }> }} */ (
    parsed
  );
  const paths = Object.fromEntries(
    Object.entries(manifest.exports).flatMap(([subpath, target]) =>
      typeof target === 'string'
        ? []
        : [
            [
              `${manifest.name}${subpath.slice(1)}`,
              [join(runtime, ('import' in target ? target.import : target).types)],
            ],
          ],
    ),
  );
  const config = join(mkdtempSync(join(tmpdir(), 'checkpoint-fencing-operator-')), 'tsconfig.json');
  // Written elsewhere, so it names where the type packages are, which tsc would look for beside it.
  const typeRoots = [join(repository, 'node_modules/@types')];
  writeFileSync(
    config,
    JSON.stringify({ extends: join(source, 'tsconfig.build.json'), compilerOptions: { paths, typeRoots } }),
  );
  return config;
}

/**
 * Writes, for each runtime entry, `dist/esm/<entry>.mjs`, which takes its CommonJS twin's exports by name (the names
 * listed from the built module, so none is forgotten), and a `.d.mts` that re-exports the twin's declarations. Named
 * re-exports, not a default import of the twin, are what every bundler and transformer reads as Node does.
 * @param {string} dist
 */
function reExportEntries(dist) {
  for (const entry of RUNTIME_ENTRIES) {
    const twin = join(dist, 'cjs', `${entry}.js`);
    const module = join(dist, 'esm', entry);
    const specifier = relative(dirname(module), twin).replaceAll('\\', '/');
    const load = /** @type {(path: string) => object} */ (createRequire(twin));
    const names = Object.keys(load(twin));
    mkdirSync(dirname(module), { recursive: true });
    writeFileSync(`${module}.mjs`, `export {\n${names.map((name) => `  ${name},\n`).join('')}} from '${specifier}';\n`);
    writeFileSync(`${module}.d.mts`, `export * from '${specifier}';\n`);
  }
}

/**
 * Copies from `staging` (tsc's ESM output of the kits and the bin, with every module they reach) into `dist/esm` the
 * ES modules of their own, as `.mjs` and `.d.mts`, so that they are ES modules in this CommonJS package. Their imports
 * of each other become `.mjs`; their imports of a runtime entry go to its `.mjs` re-export; a declaration's import of
 * any other runtime module (types only) goes to its CommonJS declarations. A value imported from behind an entry would
 * be a second path into the CommonJS build, which a tool that loads the package's ESM itself runs as a second copy: the
 * build refuses it.
 * @param {string} staging
 * @param {string} dist
 */
function keepEsmOnlyModules(staging, dist) {
  for (const file of files(staging)) {
    const path = relative(staging, file).replaceAll('\\', '/');
    const declaration = /\.d\.m?ts$/u.test(path);
    if (!ESM_ONLY.test(path) || (declaration && !path.startsWith('runtime/testing/'))) {
      continue;
    }
    const text = readFileSync(file, 'utf8').replace(
      RELATIVE_SPECIFIER,
      /** @type {(match: string, keyword: string, quote: string, specifier: string) => string} */
      (match, keyword, quote, specifier) =>
        `${keyword}${quote}${esmSpecifier(path, specifier, declaration, dist)}${quote}`,
    );
    const target = join(dist, 'esm', path.replace(/\.js$/u, '.mjs').replace(/\.d\.ts$/u, '.d.mts'));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text);
  }
}

/**
 * What the ES module (or declaration file) at `path` under dist/esm imports instead of `specifier`.
 * @param {string} path
 * @param {string} specifier
 * @param {boolean} declaration
 * @param {string} dist
 * @returns {string}
 */
function esmSpecifier(path, specifier, declaration, dist) {
  const target = posix.join(posix.dirname(path), specifier).replace(/\.m?js$/u, '');
  if (ESM_ONLY.test(target) || RUNTIME_ENTRIES.includes(target)) {
    return specifier.replace(/\.m?js$/u, '.mjs');
  }
  if (declaration) {
    return relative(dirname(join(dist, 'esm', path)), join(dist, 'cjs', `${target}.js`)).replaceAll('\\', '/');
  }
  throw new Error(
    `build-package: ${path} imports '${specifier}', a runtime module behind the package's entries. An ES module of the ` +
      `package takes the runtime's values from an entry (for a kit, '../index.js'), so that it shares the one ` +
      `CommonJS implementation with the project wherever the package is loaded (doc/adr/0707).`,
  );
}

/**
 * Every file under `folder`.
 * @param {string} folder
 * @returns {string[]}
 */
function files(folder) {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? files(join(folder, entry.name)) : [join(folder, entry.name)],
  );
}
