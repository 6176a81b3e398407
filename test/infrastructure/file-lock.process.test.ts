import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/leases/event-log.js';
import { withFileLock } from '../support/file-lock.js';
import { temporaryDirectory } from '../support/temporary-directory.js';

/** Above Linux's largest pid_max (2**22): no process can have it. */
const NO_SUCH_PID = 2 ** 22 + 1;

/**
 * A process that takes the lock as withFileLock does and, once the test says it is about to wait (`waiting` appears),
 * lets a moment pass, appends `holder` to `log` and lets go.
 */
const holderScript = `
const { appendFileSync, existsSync, mkdirSync, rmSync, writeFileSync } = require('node:fs');
const [lock, log, waiting] = process.argv.slice(1);
mkdirSync(lock);
writeFileSync(lock + '/pid', String(process.pid));
const poll = setInterval(() => {
  if (existsSync(waiting)) {
    clearInterval(poll);
    setTimeout(() => {
      appendFileSync(log, 'holder\\n');
      rmSync(lock, { recursive: true });
    }, 200);
  }
}, 20);
`;

describe('withFileLock', () => {
  it('runs the action holding the lock, with its pid inside, and removes the lock afterwards', () => {
    const lock = join(temporaryDirectory('file-lock'), 'lock');
    expect(withFileLock(lock, () => readFileSync(join(lock, 'pid'), 'utf8'))).toBe(String(process.pid));
    expect(existsSync(lock)).toBe(false);
  });

  it('removes the lock when the action throws', () => {
    const lock = join(temporaryDirectory('file-lock'), 'lock');
    expect(() =>
      withFileLock(lock, () => {
        throw new Error('build failed');
      }),
    ).toThrow('build failed');
    expect(existsSync(lock)).toBe(false);
  });

  it('takes over a lock whose maker no longer runs', () => {
    const lock = join(temporaryDirectory('file-lock'), 'lock');
    mkdirSync(lock);
    writeFileSync(join(lock, 'pid'), String(NO_SUCH_PID));
    expect(withFileLock(lock, () => 'ran')).toBe('ran');
    expect(existsSync(lock)).toBe(false);
  });

  it('waits while another process holds the lock, and runs once that process has let go', async () => {
    const folder = temporaryDirectory('file-lock');
    const [lock, log, waiting] = ['lock', 'log', 'waiting'].map((name) => join(folder, name)) as [
      string,
      string,
      string,
    ];
    writeFileSync(log, '');
    const holder = spawn(process.execPath, ['-e', holderScript, lock, log, waiting], { stdio: 'inherit' });
    const exited = new Promise((resolve) => holder.once('exit', resolve));
    await eventually('the other process holds the lock', () => existsSync(join(lock, 'pid')));
    writeFileSync(waiting, '');
    // Had it not waited, `waiter` would be logged before the holder's moment had passed.
    withFileLock(lock, () => {
      writeFileSync(log, `${readFileSync(log, 'utf8')}waiter\n`);
    });
    await exited;
    expect(readFileSync(log, 'utf8')).toBe('holder\nwaiter\n');
  });
});
