import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** What vitest's JSON reporter writes: the counts, and each file's load message and cases. */
export interface VitestJsonReport {
  readonly success: boolean;
  readonly numTotalTests: number;
  readonly numPassedTests: number;
  readonly numFailedTestSuites: number;
  readonly numFailedTests: number;
  readonly numPendingTests: number;
  readonly testResults: readonly {
    readonly message: string;
    readonly assertionResults: readonly { readonly fullName: string; readonly status: string }[];
  }[];
}

/**
 * Runs `project`'s own vitest (`node_modules/vitest`) with its config and returns the JSON report. A failing run is
 * read like a passing one: the report says what failed.
 */
export async function runProjectVitest(project: string): Promise<VitestJsonReport> {
  const report = join(project, 'report.json');
  await run(
    process.execPath,
    [join(project, 'node_modules/vitest/vitest.mjs'), 'run', '--reporter=json', `--outputFile=${report}`],
    { cwd: project, maxBuffer: 64 * 1024 * 1024 },
  ).catch(() => undefined);
  return JSON.parse(await readFile(report, 'utf8')) as VitestJsonReport;
}
