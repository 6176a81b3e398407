import { describe, expect, it } from 'vitest';
import { npmTestReport } from '../../tools/npm-test/npm-test-report.js';

describe('npmTestReport', () => {
  it('ends with one line of every script, its result and time, and the total', () => {
    expect(
      npmTestReport(
        [
          { script: 'test:vitest', status: 0, seconds: 31.26, output: '' },
          { script: 'typecheck', status: 0, seconds: 2.04, output: '' },
          { script: 'format:check', status: 0, seconds: 1.1, output: 'All matched files use Prettier code style!\n' },
        ],
        33.5,
      ),
    ).toEqual([
      'npm test: test:vitest passed 31.3 s · typecheck passed 2.0 s · format:check passed 1.1 s; all passed in 33.5 s',
    ]);
  });

  it("shows each failed script's kept output under a header naming it, before the line", () => {
    expect(
      npmTestReport(
        [
          { script: 'test:vitest', status: 1, seconds: 30, output: '' },
          { script: 'lint:eslint', status: 1, seconds: 14, output: 'runtime/x.ts\n  1:1  error  …\n\n' },
          { script: 'typecheck', status: null, seconds: 3, output: 'Killed\n' },
        ],
        31,
      ),
    ).toEqual([
      '── npm run lint:eslint failed (exit status 1) ──',
      'runtime/x.ts\n  1:1  error  …',
      '',
      '── npm run typecheck failed (ended by a signal) ──',
      'Killed',
      '',
      'npm test: test:vitest FAILED 30.0 s · lint:eslint FAILED 14.0 s · typecheck FAILED 3.0 s; 3 failed in 31.0 s',
    ]);
  });
});
