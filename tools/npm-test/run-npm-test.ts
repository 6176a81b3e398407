import { join } from 'node:path';
import {
  provisionBinaries,
  ProvisioningError,
  systemProvisioningHost,
  testProjectsWithFiles,
} from '../../test/support/projects/index.js';
import { npmTestReport } from './npm-test-report.js';
import { runScript, type ScriptOutcome } from './run-script.js';

// What `npm test` runs once `npm run build` has passed (package.json). First the binaries every test project with
// files needs, installed or refused before anything starts; then the test projects and the static checks, all at
// once: much of the test time is spent waiting on servers and child processes, and the checks fill that time. They
// run at a lower CPU priority, so they take only what the tests leave idle and never slow a timing-sensitive test
// (doc/testing.md#speed).
const started = performance.now();
try {
  await provisionBinaries(testProjectsWithFiles(join(process.cwd(), 'test')), systemProvisioningHost());
} catch (error) {
  if (!(error instanceof ProvisioningError)) {
    throw error;
  }
  process.stderr.write(`npm test: ${error.message}\n`);
  process.exit(1);
}
const outcomes: ScriptOutcome[] = await Promise.all([
  runScript('test:vitest', { showOutput: true }),
  ...['typecheck', 'lint:eslint', 'format:check'].map((script) =>
    runScript(script, { showOutput: false, lowerPriorityBy: 10 }),
  ),
]);
process.stdout.write(`\n${npmTestReport(outcomes, (performance.now() - started) / 1_000).join('\n')}\n`);
process.exitCode = outcomes.every((outcome) => outcome.status === 0) ? 0 : 1;
