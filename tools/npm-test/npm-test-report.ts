import type { ScriptOutcome } from './run-script.js';

/**
 * What `npm test` prints at the end: the kept output of each script that failed, under a header naming it, then one
 * line with every script's result and time, and the total.
 */
export function npmTestReport(outcomes: readonly ScriptOutcome[], totalSeconds: number): string[] {
  const failed = outcomes.filter((outcome) => outcome.status !== 0);
  const lines: string[] = [];
  for (const outcome of failed.filter(({ output }) => output !== '')) {
    lines.push(`── npm run ${outcome.script} failed (${statusText(outcome)}) ──`, outcome.output.trimEnd(), '');
  }
  const results = outcomes.map(
    (outcome) => `${outcome.script} ${outcome.status === 0 ? 'passed' : 'FAILED'} ${outcome.seconds.toFixed(1)} s`,
  );
  lines.push(
    `npm test: ${results.join(' · ')}; ${failed.length === 0 ? 'all passed' : `${failed.length} failed`} in ${totalSeconds.toFixed(1)} s`,
  );
  return lines;
}

function statusText(outcome: ScriptOutcome): string {
  return outcome.status === null ? 'ended by a signal' : `exit status ${outcome.status}`;
}
