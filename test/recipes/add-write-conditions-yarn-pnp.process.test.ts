import { execFile } from 'node:child_process';
import { cpSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { builtPackage } from '../support/built-package.js';
import { checkoutVersion, yarn, yarnProject } from '../support/yarn.js';
import { REPO } from './support/fixture-project.js';

const run = promisify(execFile);

/** The codemod's CLI as its package builds it, run in `root` with `--json`. */
async function upgradeJson(root: string): Promise<{ notices: string[]; filesChanged: string[] }> {
  const cli = join(builtPackage('recipes'), 'dist/recipes/cli.js');
  return JSON.parse((await run(process.execPath, [cli, 'upgrade', '--json'], { cwd: root })).stdout) as {
    notices: string[];
    filesChanged: string[];
  };
}

// Plug'n'Play installs packages into zip archives and writes no node_modules, where TypeScript's own resolution looks.
describe("the upgrade in a Yarn 4 Plug'n'Play project", { timeout: 600_000 }, () => {
  let root: string;

  beforeAll(async () => {
    root = await yarnProject('yarn-pnp', { devDependencies: { typescript: checkoutVersion('typescript') } });
    cpSync(join(REPO, 'fixtures/legacy-app/src'), join(root, 'src'), { recursive: true });
    const compilerOptions = {
      ...{ target: 'es2023', lib: ['es2023', 'dom'], module: 'nodenext', strict: true, noEmit: true, types: [] },
      ...{ noImplicitOverride: true, exactOptionalPropertyTypes: true, skipLibCheck: true },
    };
    writeFileSync(join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['src'] }));
  }, 600_000);

  it("reads the installed package's declarations through Plug'n'Play: no note, an upgrade tsc accepts, then nothing", async () => {
    expect(existsSync(join(root, '.pnp.cjs'))).toBe(true);
    expect(existsSync(join(root, 'node_modules'))).toBe(false);
    const first = await upgradeJson(root);
    expect(first.notices).toEqual([]);
    expect(first.filesChanged).toHaveLength(4);
    await expect(yarn(root, 'tsc', '-p', '.')).resolves.toBe('');
    const second = await upgradeJson(root);
    expect(second).toMatchObject({ notices: [], filesChanged: [] });
  });
});
