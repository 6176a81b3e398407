import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { builtPackage } from '../support/built-package.js';
import { LINT_FIX_FIXTURE, lintedProject, UNFIXED } from './support/linted-project.js';

/** The codemod's dist/, built from the current sources, as users run it. */
let build: string;

beforeAll(() => {
  build = join(builtPackage('recipes'), 'dist');
}, 600_000);

function cli(cwd: string, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [join(build, 'recipes/cli.js'), 'upgrade', ...args], {
    cwd,
    encoding: 'utf8',
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

// Each case spawns the CLI, which loads the project's ESLint and typescript-eslint: seconds on a loaded machine.
describe("checkpoint-fencing-codemod upgrade and the project's ESLint (spawned CLI)", { timeout: 90_000 }, () => {
  it("applies the project's ESLint fixes to the lines it writes and says which rules' fixes it applied", () => {
    const root = lintedProject('lint-fix-cli');
    const run = cli(root);
    expect(run.status).toBe(0);
    expect(run.stderr).toBe(
      "storage.ts: applied the project's ESLint fixes for padding-line-between-statements to the lines the upgrade wrote.\n",
    );
    expect(readFileSync(join(root, 'storage.ts'), 'utf8')).toBe(
      readFileSync(join(LINT_FIX_FIXTURE, 'output.ts'), 'utf8'),
    );
  });

  it('--json lists the rules fixed in each file; with --no-lint-fix, none, and the generated lines stay unfixed', () => {
    const [fixed, unfixed] = [lintedProject('lint-fix-json'), lintedProject('lint-fix-json-off')];
    const reports = [cli(fixed, '--json'), cli(unfixed, '--json', '--no-lint-fix')].map(
      (run) => JSON.parse(run.stdout) as { lintFixes: unknown },
    );
    expect(reports.map((report) => report.lintFixes)).toEqual([
      [{ file: 'storage.ts', rules: ['padding-line-between-statements'] }],
      [],
    ]);
    expect(readFileSync(join(fixed, 'storage.ts'), 'utf8')).not.toContain(UNFIXED);
    expect(readFileSync(join(unfixed, 'storage.ts'), 'utf8')).toContain(UNFIXED);
  });
});
