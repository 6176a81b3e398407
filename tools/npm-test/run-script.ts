import { spawn } from 'node:child_process';
import { getPriority, setPriority } from 'node:os';

/** How one npm script of `npm test` ended. */
export interface ScriptOutcome {
  /** The npm script, e.g. `typecheck`. */
  readonly script: string;
  /** Its exit status; `null` when a signal ended it. */
  readonly status: number | null;
  readonly seconds: number;
  /** Its stdout and stderr, interleaved; empty when they went straight to the terminal. */
  readonly output: string;
}

/** How {@link runScript} runs a script. */
export interface RunScriptOptions {
  /** Output straight to this terminal (colours, progress), or kept for the report so that side-by-side scripts never interleave. */
  readonly showOutput: boolean;
  /**
   * Run it this many nice levels below `npm test`'s own priority (capped at the lowest, 19), so that the tests beside it
   * keep their timing. Relative, so that `nice npm test` still works: raising a priority would need root.
   */
  readonly lowerPriorityBy?: number;
  /** The package whose script runs; this process's working directory when absent. */
  readonly cwd?: string;
}

/** Runs `npm run <script>` to completion. */
export function runScript(script: string, options: RunScriptOptions): Promise<ScriptOutcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script], {
      cwd: options.cwd ?? process.cwd(),
      stdio: options.showOutput ? 'inherit' : ['ignore', 'pipe', 'pipe'],
      env: options.showOutput ? process.env : { ...process.env, FORCE_COLOR: process.stdout.isTTY ? '1' : '0' },
    });
    if (options.lowerPriorityBy !== undefined && child.pid !== undefined) {
      // npm and the processes it starts inherit the priority; they start after this line runs.
      setPriority(child.pid, Math.min(19, getPriority() + options.lowerPriorityBy));
    }
    let output = '';
    const collect = (chunk: Buffer): void => {
      output += chunk.toString();
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    const finish = (status: number | null): void => {
      resolve({ script, status, seconds: (performance.now() - started) / 1_000, output });
    };
    child.once('error', (error) => {
      output += String(error);
      finish(null);
    });
    child.once('close', finish);
  });
}
