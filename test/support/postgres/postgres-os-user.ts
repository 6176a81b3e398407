import { execFileSync } from 'node:child_process';
import { chownSync } from 'node:fs';

/** The unprivileged system user the test servers run as when the tests run as root (PostgreSQL refuses root). */
export const postgresOsUserName = 'checkpoint_fencing_pg';

/** Who a test server's processes run as: `undefined` means this process's own user. */
export interface PostgresOsUser {
  readonly name: string;
  readonly uid: number;
  readonly gid: number;
}

/**
 * `undefined` when this process is not root: the servers then run as the current user. As root, the dedicated
 * system user, created with `useradd --system` the first time (no home, no login shell).
 */
export function postgresOsUser(): PostgresOsUser | undefined {
  if (process.getuid?.() !== 0) {
    return undefined;
  }
  if (!userExists()) {
    try {
      execFileSync(
        'useradd',
        [
          '--system',
          '--no-create-home',
          '--home-dir',
          '/nonexistent',
          '--shell',
          '/usr/sbin/nologin',
          postgresOsUserName,
        ],
        { stdio: 'pipe' },
      );
    } catch (error) {
      // Another test file may have created the user at the same moment; only a user still missing is a failure.
      if (!userExists()) {
        throw new Error(
          `PostgreSQL refuses to run as root, and creating the system user ${postgresOsUserName} to run the test server ` +
            `failed (${String(error)}). Create it with \`useradd --system ${postgresOsUserName}\`, or run the tests as a non-root user.`,
          { cause: error },
        );
      }
    }
  }
  return {
    name: postgresOsUserName,
    uid: Number(execFileSync('id', ['-u', postgresOsUserName], { encoding: 'utf8' }).trim()),
    gid: Number(execFileSync('id', ['-g', postgresOsUserName], { encoding: 'utf8' }).trim()),
  };
}

/** Hands `path` to the server's user, so it can write there; a no-op when the server runs as this process's user. */
export function handToPostgresOsUser(path: string, user: PostgresOsUser | undefined): void {
  if (user !== undefined) {
    chownSync(path, user.uid, user.gid);
  }
}

/** `uid`/`gid` spawn options that run a child as `user`; none when it runs as this process's user. */
export function spawnIdentity(user: PostgresOsUser | undefined): { uid?: number; gid?: number } {
  return user === undefined ? {} : { uid: user.uid, gid: user.gid };
}

function userExists(): boolean {
  try {
    execFileSync('id', ['-u', postgresOsUserName], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
}
