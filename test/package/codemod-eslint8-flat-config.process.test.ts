import { execFile } from 'node:child_process';
import { cpSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { fixtureCompilerOptions } from '../recipes/support/fixture-project.js';
import { installConsumer } from './consumer-project.js';

const run = promisify(execFile);
const REPO = resolve(import.meta.dirname, '../..');
const FIXTURE = join(REPO, 'fixtures/recipes/lint-fix');

/**
 * The codemod from its tarball in a project on ESLint 8.57 with a flat config (eslint.config.js), as a Yarn PnP trial
 * repository had it: ESLint 8's `ESLint` class reads only eslintrc, so the project's fixes must come through
 * `loadESLint`, as ESLint's own command line finds the flat config.
 */
describe(
  'checkpoint-fencing-codemod upgrade in a project on ESLint 8.57 with a flat config',
  { timeout: 600_000 },
  () => {
    it("applies the project's ESLint fixes to the lines it writes, as on ESLint 9 and 10", async () => {
      const { directory } = await installConsumer('codemod-eslint8-flat', {
        type: 'module',
        packages: ['checkpoint-fencing-codemod', 'checkpoint-fencing'],
        devDependencies: { eslint: '8.57.0', 'typescript-eslint': '8.72.0' },
      });
      cpSync(join(FIXTURE, 'input.ts'), join(directory, 'storage.ts'));
      const tsconfig = { compilerOptions: fixtureCompilerOptions(), include: ['storage.ts'] };
      writeFileSync(join(directory, 'tsconfig.json'), JSON.stringify(tsconfig));
      cpSync(join(FIXTURE, 'eslint.config.js'), join(directory, 'eslint.config.js'));
      writeFileSync(join(directory, '.prettierrc'), JSON.stringify({ singleQuote: true }));
      symlinkSync(join(REPO, 'node_modules/prettier'), join(directory, 'node_modules/prettier'), 'dir');
      const codemod = join(directory, 'node_modules/checkpoint-fencing-codemod/dist/recipes/cli.js');
      const { stderr } = await run(process.execPath, [codemod, 'upgrade'], { cwd: directory });
      expect(stderr).toBe(
        "storage.ts: applied the project's ESLint fixes for padding-line-between-statements to the lines the upgrade wrote.\n",
      );
      expect(readFileSync(join(directory, 'storage.ts'), 'utf8')).toBe(
        readFileSync(join(FIXTURE, 'output.ts'), 'utf8'),
      );
    });
  },
);
