import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify, stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { installConsumer } from './consumer-project.js';
import { RECIPE_FIXTURES, REPO } from '../recipes/support/fixture-project.js';

const run = promisify(execFile);

/**
 * The codemod's `./jscodeshift` export installed from its tarball and run as jscodeshift runs a transform by
 * default: `require`d under jscodeshift's @babel/register hook, which compiles every file required after it,
 * node_modules included.
 */
describe('checkpoint-fencing-codemod/jscodeshift under jscodeshift’s default invocation', { timeout: 600_000 }, () => {
  it('upgrades TypeScript, JSDoc-annotated JavaScript and CRLF/BOM files byte for byte, Babel hook on', async () => {
    const { directory } = await installConsumer('codemod-jscodeshift', { packages: ['checkpoint-fencing-codemod'] });
    const cases = [
      ['delegating-method', 'input.ts', 'storage.ts'],
      ['jsdoc-typedef-implements', 'input.js', 'object-storage.js'],
      ['tabs-crlf-bom-double-quotes', 'input.ts', 'crlf-storage.ts'],
    ] as const;
    mkdirSync(join(directory, 'src'));
    for (const [name, input, target] of cases) {
      cpSync(join(RECIPE_FIXTURES, name, input), join(directory, 'src', target));
    }
    const transform = createRequire(join(directory, 'package.json')).resolve('checkpoint-fencing-codemod/jscodeshift');
    const { stdout, stderr } = await run(
      process.execPath,
      [join(REPO, 'node_modules/jscodeshift/bin/jscodeshift.js'), '-t', transform, '--extensions=ts,js', 'src'],
      { cwd: directory, maxBuffer: 64 * 1024 * 1024 },
    );
    expect(stderr).toBe('');
    // jscodeshift colours its summary where it sees CI=true, even into a pipe.
    expect(stripVTControlCharacters(stdout)).toMatch(/0 errors\n.*\n.*\n3 ok/);
    for (const [name, input, target] of cases) {
      expect(readFileSync(join(directory, 'src', target), 'utf8'), name).toBe(
        readFileSync(join(RECIPE_FIXTURES, name, input.replace('input', 'output')), 'utf8'),
      );
    }
  });
});
