import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { upgrade, type UpgradeReport } from '../../recipes/index.js';
import { RECIPE_FIXTURES, REPO } from './support/fixture-project.js';
import {
  copyProjectCase,
  projectCases,
  projectFiles,
  type CaseStorage,
  type ProjectCase,
} from './support/project-case.js';
import { runnableCopy } from './support/runnable-copy.js';
import { expectSameBehaviour } from './support/storage-behaviour.js';

const run = promisify(execFile);
const tsc = join(REPO, 'node_modules/typescript/bin/tsc');

/** A fresh storage from the case's module under `root`, imported from a copy that shares this test's runtime. */
async function makeStorage(root: string, storage: CaseStorage): Promise<object> {
  const module = (await import(
    join(runnableCopy(join(root, dirname(storage.module))), basename(storage.module))
  )) as Record<string, unknown>;
  if (storage.class !== undefined) {
    return new (module[storage.class] as new () => object)();
  }
  return (module[storage.factory ?? ''] as () => object)();
}

/** Runs the repository's TypeScript over the project; its output when it fails. */
async function typeCheck(root: string, projectCase: ProjectCase): Promise<string> {
  // Projects on TypeScript 5 write "moduleResolution": "node" and baseUrl without the opt-in TypeScript 6 asks for.
  const args =
    projectCase.projects !== undefined
      ? ['-b', ...projectCase.projects.map((project) => join(root, project))]
      : projectCase.build === true
        ? ['-b', root]
        : ['-p', root, '--ignoreDeprecations', '6.0'];
  return run(process.execPath, [tsc, ...args]).then(
    () => '',
    (error: unknown) =>
      `${String((error as { stdout?: string }).stdout)}${String((error as { stderr?: string }).stderr)}`,
  );
}

// Real-world shapes as whole projects: each is upgraded in a temporary copy with the package installed as it
// publishes, compared byte for byte with output/, upgraded again, type-checked under its own settings, and run.
describe.each(projectCases())('project case $name', { timeout: 180_000 }, (projectCase) => {
  let root: string;
  let first: UpgradeReport;
  let second: UpgradeReport;
  let afterFirst: Map<string, Buffer>;

  beforeAll(async () => {
    root = copyProjectCase(projectCase);
    first = await upgrade({ cwd: root });
    afterFirst = projectFiles(root);
    second = await upgrade({ cwd: root });
  }, 180_000);

  it(`${projectCase.description} The upgrade writes output/ byte for byte`, () => {
    const expected = projectFiles(join(RECIPE_FIXTURES, projectCase.name, 'output'));
    expect([...afterFirst.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [file, bytes] of expected) {
      expect(afterFirst.get(file)?.toString('utf8'), file).toBe(bytes.toString('utf8'));
      expect(afterFirst.get(file)?.equals(bytes), file).toBe(true);
    }
    expect(first.changes.length).toBeGreaterThan(0);
    expect(first.skipped).toEqual([]);
  });

  it('changes nothing on a second run', () => {
    expect(second.changes).toEqual([]);
    for (const [file, bytes] of projectFiles(root)) {
      expect(afterFirst.get(file)?.equals(bytes), file).toBe(true);
    }
  });

  it('type-checks under its own tsconfig', async () => {
    expect(await typeCheck(root, projectCase)).toBe('');
  });

  it('behaves as before, attached and detached, and refuses every condition but any()', async () => {
    const input = join(RECIPE_FIXTURES, projectCase.name, 'input');
    for (const storage of projectCase.storages) {
      await expectSameBehaviour(
        () => makeStorage(input, storage),
        () => makeStorage(root, storage),
      );
    }
  });

  if (projectCase.link?.includes('@biomejs/biome') === true) {
    it('passes `biome ci`: formatted, imports sorted, lint clean', async () => {
      const biome = join(root, 'node_modules/@biomejs/biome/bin/biome');
      await expect(run(process.execPath, [biome, 'ci', '--colors=off', '.'], { cwd: root })).resolves.toBeDefined();
    });
  }

  const compiled = projectCase.compiled;
  if (compiled === undefined) {
    return;
  }
  it('runs compiled, loading the package with require', async () => {
    const script = join(root, 'smoke.cjs');
    writeFileSync(
      script,
      [
        "const { CheckpointWriteCondition } = require('checkpoint-fencing');",
        `const { ${compiled.class} } = require(${JSON.stringify(join(root, compiled.module))});`,
        `const storage = new ${compiled.class}();`,
        'const outcome = (promise) => promise.then((value) => value, (error) => error.name);',
        'void (async () => {',
        "  const saved = await outcome(storage.save('invoices', '12', CheckpointWriteCondition.any()));",
        "  const refused = await outcome(storage.save('invoices', '13', CheckpointWriteCondition.notOlderThan(4)));",
        "  console.log(JSON.stringify([saved, refused, await storage.read('invoices')]));",
        '})();',
      ].join('\n'),
    );
    const { stdout } = await run(process.execPath, [script], { cwd: root });
    expect(JSON.parse(stdout)).toEqual(['12', 'UnsupportedWriteConditionError', '12']);
  });
});

describe('a workspace upgraded from inside one of its packages', () => {
  it("upgrades that package's files, skipping a hierarchy that crosses into another package", async () => {
    const projectCase = projectCases().find((candidate) => candidate.name === 'pnpm-turborepo-biome');
    if (projectCase === undefined) {
      throw new Error('the pnpm-turborepo-biome case is missing from fixtures/recipes/add-write-conditions.');
    }
    const root = copyProjectCase(projectCase);
    const report = await upgrade({ cwd: join(root, 'apps/worker') });
    expect(report.changes.map((change) => relative(root, change.file))).toEqual([
      'apps/worker/src/ledger-checkpoint-storage.ts',
    ]);
    expect(report.skipped).toEqual([
      expect.objectContaining({
        class: 'AuditedCheckpointStorage',
        reason: expect.stringContaining(
          `TableCheckpointStorage in ${join(root, 'packages/core/src/table-checkpoint-storage.ts')} belongs to the same class hierarchy`,
        ) as string,
      }),
    ]);
  }, 120_000);
});

// The formatter installed formats what the upgrade wrote; without it, the upgrade reads its configuration and writes
// the same bytes itself.
describe.each(projectCases().filter((projectCase) => projectCase.link !== undefined))(
  '$name without its formatter installed',
  (projectCase) => {
    it('gets the same bytes from the recipe wrapping at the configured width', async () => {
      const root = copyProjectCase(projectCase, { link: false });
      const report = await upgrade({ cwd: root });
      expect(report.notices).toEqual([]);
      const expected = projectFiles(join(RECIPE_FIXTURES, projectCase.name, 'output'));
      for (const [file, bytes] of expected) {
        expect(projectFiles(root).get(file)?.toString('utf8'), file).toBe(bytes.toString('utf8'));
      }
    }, 120_000);
  },
);
