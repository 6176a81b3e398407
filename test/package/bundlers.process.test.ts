import { execFile } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import commonjsModule from '@rollup/plugin-commonjs';
import { nodeResolve } from '@rollup/plugin-node-resolve';
import { build } from 'esbuild';
import { rollup } from 'rollup';
import { beforeAll, describe, expect, it } from 'vitest';
import { installConsumer } from './consumer-project.js';
import { runProjectVitest } from './vitest-report.js';

const run = promisify(execFile);
// The plugin's declarations are CommonJS-typed while `import` loads its ES module, whose default export is the plugin
// (what attw calls "masquerading as CJS"): TypeScript sees the default export one level down.
const commonjs = commonjsModule as unknown as typeof commonjsModule.default;
const repository = resolve(import.meta.dirname, '../..');

/** The entries a bundle takes the runtime from, each imported as ESM and required as CommonJS. */
const ENTRIES = ['checkpoint-fencing', 'checkpoint-fencing/dual-anchor', 'checkpoint-fencing/store-layout'];

/**
 * A CommonJS module of the project, which a bundler bundles beside the ESM one: what `require` gives of each entry.
 */
const requiredSource = `module.exports = {
${ENTRIES.map((entry) => `  '${entry}': require('${entry}'),`).join('\n')}
};
`;

/**
 * The program bundled: every entry imported as ESM, compared name by name with what the CommonJS module of the same
 * bundle required; a refusal thrown by either copy checked against the other's class. No top-level await, so that
 * esbuild can write it as CommonJS, its default for Node.
 */
const probeSource = `${ENTRIES.map((entry, index) => `import * as entry${index} from '${entry}';`).join('\n')}
import required from './required.cjs';

const imported = { ${ENTRIES.map((entry, index) => `'${entry}': entry${index}`).join(', ')} };

async function refuse(copy) {
  const storage = new copy.InMemoryCheckpointStorage();
  await storage.save('orders', '7', copy.CheckpointWriteCondition.notOlderThan(3n));
  return storage.save('orders', '6', copy.CheckpointWriteCondition.notOlderThan(2n)).catch((error) => error);
}

async function main() {
  const undefinedExports = [];
  const differing = [];
  let exports = 0;
  for (const [entry, namespace] of Object.entries(imported)) {
    // What an interop layer adds to a namespace or to module.exports is not an export of the package.
    const names = [...new Set([...Object.keys(namespace), ...Object.keys(required[entry])])].filter(
      (name) => name !== 'default' && name !== '__esModule',
    );
    exports += names.length;
    undefinedExports.push(...names.filter((name) => namespace[name] === undefined).map((name) => entry + ' ' + name));
    differing.push(...names.filter((name) => namespace[name] !== required[entry][name]).map((name) => entry + ' ' + name));
  }
  const root = imported['checkpoint-fencing'];
  const cjs = required['checkpoint-fencing'];
  console.log(
    JSON.stringify({
      exports,
      undefinedExports,
      differing,
      refusalFromRequireIsImportsClass: (await refuse(cjs)) instanceof root.CheckpointWriteConditionNotFulfilledError,
      refusalFromImportIsRequiresClass: (await refuse(root)) instanceof cjs.CheckpointWriteConditionNotFulfilledError,
    }),
  );
}
void main();
`;

/**
 * A project's test file run by vitest with the package inlined (`server.deps.inline`): vitest then loads the package's
 * ESM itself instead of handing it to Node. The conformance kits run over the package's in-memory storage and store,
 * and what the ESM entry gives is checked against what Node's `require` gives.
 */
const inlinedTestSource = `import { createRequire } from 'node:module';
import { expect, it } from 'vitest';
import * as root from 'checkpoint-fencing';
import { InMemoryDualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
import {
  describeCheckpointStorageConformance,
  describeDualAnchorCheckpointStoreConformance,
} from 'checkpoint-fencing/testing';

const required = createRequire(import.meta.url)('checkpoint-fencing');

it('sees every export of the root entry defined, each the object require gives', () => {
  const names = Object.keys(required);
  expect(names.length).toBeGreaterThan(0);
  expect(names.filter((name) => root[name] === undefined)).toEqual([]);
  expect(names.filter((name) => root[name] !== required[name])).toEqual([]);
});

describeCheckpointStorageConformance('inlined in-memory', () => new root.InMemoryCheckpointStorage());
describeDualAnchorCheckpointStoreConformance('inlined in-memory', () => new InMemoryDualAnchorCheckpointStore());
`;

const inlinedConfigSource = `import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { include: ['inlined.test.mjs'], server: { deps: { inline: ['checkpoint-fencing'] } } },
});
`;

/** The probe's expected report: every export defined and the same object both ways, the refusal one class. */
const ONE_COPY = {
  exports: expect.any(Number) as number,
  undefinedExports: [],
  differing: [],
  refusalFromRequireIsImportsClass: true,
  refusalFromImportIsRequiresClass: true,
};

/**
 * Transformers and bundlers that read the package themselves instead of leaving it to Node: vitest with the package
 * inlined, esbuild and rollup bundling a program. Each must see the package as Node does: every export defined, and
 * one copy of every class between its ESM entries and `require` (doc/adr/0707).
 */
describe('the packed runtime inlined by vitest and bundled by esbuild and rollup', { timeout: 600_000 }, () => {
  let project: string;

  beforeAll(async () => {
    project = (await installConsumer('bundlers', { type: 'module' })).directory;
    // The project's test runner: this checkout's vitest.
    await symlink(join(repository, 'node_modules/vitest'), join(project, 'node_modules/vitest'), 'dir');
    await writeFile(join(project, 'required.cjs'), requiredSource);
    await writeFile(join(project, 'probe.mjs'), probeSource);
    await writeFile(join(project, 'inlined.test.mjs'), inlinedTestSource);
    await writeFile(join(project, 'vitest.config.mjs'), inlinedConfigSource);
    await mkdir(join(project, 'out'));
  }, 900_000);

  it('runs the conformance kits under vitest with the package inlined: exports defined, one refusal class', async () => {
    const result = await runProjectVitest(project);
    const failed = result.testResults.flatMap((file) =>
      file.assertionResults.filter((test) => test.status !== 'passed').map((test) => test.fullName),
    );
    expect({ failed, messages: result.testResults.map((file) => file.message) }).toEqual({
      failed: [],
      messages: [''],
    });
    // The root-entry check and both kits' cases ran, not a file that failed to load.
    expect(result.success).toBe(true);
    expect(result.numPassedTests).toBe(result.numTotalTests);
    expect(result.numTotalTests).toBeGreaterThan(100);
  });

  it('bundles with esbuild for Node: exports defined, one copy between import and require', async () => {
    const outfile = join(project, 'out/esbuild.cjs');
    const { errors } = await build({
      entryPoints: [join(project, 'probe.mjs')],
      absWorkingDir: project,
      bundle: true,
      platform: 'node',
      outfile,
      logLevel: 'silent',
    });
    expect(errors).toEqual([]);
    const { stdout } = await run(process.execPath, [outfile], { cwd: project });
    expect(JSON.parse(stdout)).toEqual(ONE_COPY);
  });

  it('bundles with rollup, node-resolve and commonjs: exports defined, one copy between import and require', async () => {
    const warnings: string[] = [];
    const bundle = await rollup({
      input: join(project, 'probe.mjs'),
      plugins: [nodeResolve({ rootDir: project, preferBuiltins: true }), commonjs()],
      external: [...builtinModules, /^node:/],
      onwarn: (warning) => warnings.push(`${warning.code ?? ''} ${warning.message}`),
    });
    const file = join(project, 'out/rollup.mjs');
    await bundle.write({ file, format: 'es' });
    await bundle.close();
    expect(warnings).toEqual([]);
    const { stdout, stderr } = await run(process.execPath, [file], { cwd: project });
    expect(JSON.parse(stdout)).toEqual(ONE_COPY);
    // plugin-commonjs stands in for the dynamic require of the optional @opentelemetry/api with one that throws: the
    // storages are made all the same, without telemetry, and a warning says why.
    expect(stderr).toMatch(
      /CheckpointFencingTelemetryWarning: checkpoint-fencing: @opentelemetry\/api could not be loaded/,
    );
  });
});
