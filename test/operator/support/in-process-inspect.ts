import { resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { runOperatorCommand } from '../../../operator/index.js';

/** One write of a command, to stdout or stderr, in the order the command made them; or stdout drained (`text` empty). */
export interface OperatorWrite {
  readonly stream: 'out' | 'err' | 'drained';
  readonly text: string;
}

/** How a command run in-process ended, and every write it made, in order. */
export interface InProcessRun {
  readonly code: number;
  readonly writes: readonly OperatorWrite[];
}

/**
 * Runs `checkpoint-fencing inspect …args` in this process, through the function the bin runs, recording each write to
 * stdout and stderr in one sequence: what a child process's two pipes cannot show, which came first. With
 * `slowReaderMs`, stdout is full after every write and drains that long after the command asks to wait for it, as
 * under a reader slower than the store; each drain is recorded in the sequence.
 */
export async function inspectInProcess(args: readonly string[], slowReaderMs?: number): Promise<InProcessRun> {
  const writes: OperatorWrite[] = [];
  const code = await runOperatorCommand('inspect', args, {
    io: {
      out: (text) => writes.push({ stream: 'out', text }),
      err: (text) => writes.push({ stream: 'err', text }),
      outDrained: async () => {
        if (slowReaderMs !== undefined) {
          await delay(slowReaderMs);
          writes.push({ stream: 'drained', text: '' });
        }
      },
      errIsTTY: false,
    },
    cwd: resolve(import.meta.dirname, '../../..'),
  });
  return { code, writes };
}

/** When a run printed its report, against its reading. */
export interface ReportTiming {
  /** The index in `writes` of the first stdout write holding a row. */
  readonly firstRow: number;
  /** The index of the progress line that ends the read (`inspect: 12,000 keys scanned in 1.2 s`). */
  readonly readEnded: number;
  /** The most rows one stdout write held. */
  readonly mostRowsInOneWrite: number;
}

/** When `run` printed its rows, each write's rows counted by `rowsIn`. */
export function reportTiming(run: InProcessRun, rowsIn: (text: string) => number): ReportTiming {
  const stdout = run.writes.map((write) => (write.stream === 'out' ? rowsIn(write.text) : 0));
  return {
    firstRow: stdout.findIndex((rows) => rows > 0),
    readEnded: run.writes.findIndex((write) => write.stream === 'err' && / in \d+\.\d s\n$/u.test(write.text)),
    mostRowsInOneWrite: Math.max(...stdout),
  };
}

/** How `run`'s stdout writes holding rows (counted by `rowsIn`) waited for stdout to drain. */
export interface DrainWaits {
  readonly rowWrites: number;
  /** Writes of rows that came after another with no drain between them. */
  readonly unwaited: number;
}

/** Whether each write of rows in `run` waited for the drain of the one before it. */
export function drainWaits(run: InProcessRun, rowsIn: (text: string) => number): DrainWaits {
  let rowWrites = 0;
  let unwaited = 0;
  let drainedSinceRows = true;
  for (const write of run.writes) {
    if (write.stream === 'drained') {
      drainedSinceRows = true;
    } else if (write.stream === 'out' && rowsIn(write.text) > 0) {
      rowWrites += 1;
      unwaited += drainedSinceRows ? 0 : 1;
      drainedSinceRows = false;
    }
  }
  return { rowWrites, unwaited };
}
