import { writeFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runScript } from '../../tools/npm-test/run-script.js';
import { temporaryDirectory } from '../support/temporary-directory.js';

function packageWithScripts(scripts: Record<string, string>): string {
  const cwd = temporaryDirectory('run-script');
  writeFileSync(join(cwd, 'package.json'), JSON.stringify({ name: 'scripts', private: true, scripts }));
  return cwd;
}

describe('runScript', () => {
  it('keeps the output and exit status of a failing script', async () => {
    const cwd = packageWithScripts({ broken: 'echo checked >&1; echo broken >&2; exit 3' });
    const outcome = await runScript('broken', { showOutput: false, cwd });
    expect(outcome).toMatchObject({ script: 'broken', status: 3 });
    expect(outcome.output).toContain('checked\n');
    expect(outcome.output).toContain('broken\n');
    expect(outcome.seconds).toBeGreaterThan(0);
  });

  it('runs a script, and what it starts, the given number of nice levels below npm test', async () => {
    const cwd = packageWithScripts({ niceness: 'nice' });
    const outcome = await runScript('niceness', { showOutput: false, lowerPriorityBy: 10, cwd });
    expect(outcome.status).toBe(0);
    expect(outcome.output.trim()).toBe(String(Math.min(19, getPriority() + 10)));
  });
});
