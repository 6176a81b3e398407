import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const POLL_MS = 100;
/** A lock just made has no pid in it for a moment; one that stays without a pid this long lost its maker. */
const PID_GRACE_MS = 10_000;
const sleeper = new Int32Array(new SharedArrayBuffer(4));

/**
 * Runs `action` while holding a lock that the other processes of this machine respect: the directory `path`, made
 * with an atomic mkdir, holding its maker's pid, removed afterwards. A process that finds it held waits, polling; a
 * lock whose maker no longer runs is taken over. Synchronous, so that synchronous helpers can use it.
 *
 * For work that test files starting at once would otherwise each do, such as building the package: one does it, the
 * others wait and find the result. It only saves work: what runs under it must still be safe to run twice at once,
 * because two processes that both find the same dead maker may both take over.
 */
export function withFileLock<T>(path: string, action: () => T): T {
  for (;;) {
    try {
      mkdirSync(path);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw error;
      }
      if (makerIsGone(path)) {
        rmSync(path, { recursive: true, force: true });
      } else {
        Atomics.wait(sleeper, 0, 0, POLL_MS);
      }
    }
  }
  try {
    writeFileSync(join(path, 'pid'), String(process.pid));
    return action();
  } finally {
    rmSync(path, { recursive: true, force: true });
  }
}

function makerIsGone(path: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(join(path, 'pid'), 'utf8'));
  } catch {
    try {
      return Date.now() - statSync(path).mtimeMs > PID_GRACE_MS;
    } catch {
      return false; // removed meanwhile: the next mkdir decides
    }
  }
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
