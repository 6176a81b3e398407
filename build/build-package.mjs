#!/usr/bin/env node
// @ts-check
// Builds one workspace package: `node build/build-package.mjs <runtime|eslint-plugin|recipes|operator> [--into <folder>]
// [--runtime <folder>]`. Plain JavaScript, so that a fresh clone builds with nothing built before it. `--into` writes
// the package's dist/ (and the plugin's doc/) under another folder: the tests build a copy of the current sources
// there. `--runtime` names the built checkpoint-fencing the operator is compiled against (runtime/ by default).
//
// runtime: one CommonJS implementation in dist/cjs, and dist/esm, where every runtime module is a re-export of its
// CommonJS twin and only the conformance kits and the bin are ESM code of their own, so that whichever way a project
// loads the package there is one copy of every class (doc/adr/0706).
// eslint-plugin, recipes and operator: one ESM build, with `.d.cts` twins of their declarations for CommonJS consumers
// (the operator, a bin, declares nothing). The operator imports the runtime by name and runs against the one installed
// with it, so it is compiled against a built runtime's declarations, never its sources, which it must not ship.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import process from 'node:process';
import { parseArgs } from 'node:util';

const repository = resolve(import.meta.dirname, '..');
const tsc = join(repository, 'node_modules/typescript/bin/tsc');

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

if (name === 'runtime') {
  compile('tsconfig.cjs.json', join(dist, 'cjs'));
  writeFileSync(join(dist, 'cjs/package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
  compile('tsconfig.esm.json', join(dist, 'esm'));
  reExportCommonJsTwins(join(dist, 'esm/runtime'), join(dist, 'cjs/runtime'));
  emitCommonJsDeclarations(join(dist, 'esm'));
} else if (name === 'operator') {
  const config = configResolvingRuntime(resolve(values.runtime ?? join(repository, 'runtime')));
  compile(config, dist);
  rmSync(dirname(config), { recursive: true, force: true });
} else {
  compile('tsconfig.build.json', dist);
  emitCommonJsDeclarations(dist);
}
if (name === 'recipes') {
  compile('tsconfig.runtime-declarations.json', dist);
}
if (name === 'eslint-plugin') {
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
 * A temporary tsconfig: the package's tsconfig.build.json, with `checkpoint-fencing` and each of its subpaths mapped to
 * the declarations its `exports` name in the built runtime at `runtime`, wherever that is (this repository's runtime/,
 * or a test's build of it), as a project with it installed would resolve them.
 * @param {string} runtime
 * @returns {string}
 */
function configResolvingRuntime(runtime) {
  /** @type {unknown} */
  const parsed = JSON.parse(readFileSync(join(runtime, 'package.json'), 'utf8'));
  const manifest = /** @type {{ name: string; exports: Record<string, string | { import: { types: string } }> }} */ (
    parsed
  );
  const paths = Object.fromEntries(
    Object.entries(manifest.exports).flatMap(([subpath, target]) =>
      typeof target === 'string' ? [] : [[`${manifest.name}${subpath.slice(1)}`, [join(runtime, target.import.types)]]],
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
 * Replaces each ESM module under `esm` that has a CommonJS twin under `cjs` by a re-export of that twin: its `.js`
 * takes the twin's exports by name, its `.d.ts` re-exports the twin's declarations, its map goes.
 * @param {string} esm
 * @param {string} cjs
 */
function reExportCommonJsTwins(esm, cjs) {
  const load = /** @type {(path: string) => object} */ (createRequire(join(cjs, 'index.js')));
  for (const file of files(cjs).filter((path) => path.endsWith('.js'))) {
    const path = relative(cjs, file);
    const module = join(esm, path);
    if (!existsSync(module)) {
      continue;
    }
    const twin = relative(dirname(module), file).replaceAll('\\', '/');
    const names = Object.keys(load(file));
    writeFileSync(
      module,
      names.length === 0
        ? 'export {};\n'
        : `import twin from '${twin}';\n\nexport const { ${names.join(', ')} } = twin;\n`,
    );
    writeFileSync(module.replace(/\.js$/, '.d.ts'), `export * from '${twin}';\n`);
    rmSync(`${module}.map`, { force: true });
  }
}

/**
 * Gives every declaration file under `folder` a `.d.cts` twin for CommonJS consumers on "node16"/"nodenext", whose
 * `require` condition points there: the same declarations with relative imports pointing at each other's twins, so
 * that a CommonJS consumer never crosses into an ESM-format declaration file (TS1479).
 * @param {string} folder
 */
function emitCommonJsDeclarations(folder) {
  const relativeJs = /(\bfrom\s*|\bimport\s*\(\s*)(['"])(\.{1,2}\/[^'"]*?)\.js\2/g;
  for (const file of files(folder).filter((path) => path.endsWith('.d.ts'))) {
    // Only a specifier into `folder` has a twin; a re-export of the CommonJS build already names CommonJS declarations.
    const twin = readFileSync(file, 'utf8').replace(
      relativeJs,
      /** @type {(match: string, keyword: string, quote: string, specifier: string) => string} */
      (match, keyword, quote, specifier) =>
        relative(folder, resolve(dirname(file), specifier)).startsWith('..')
          ? match
          : `${keyword}${quote}${specifier}.cjs${quote}`,
    );
    writeFileSync(file.replace(/\.d\.ts$/, '.d.cts'), twin);
  }
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
