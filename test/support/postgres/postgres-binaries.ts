import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The one command that installs everything the PostgreSQL tests, the soak and the benchmark start. */
export const installPostgresCommand = 'apt-get install -y postgresql pgbouncer';

const debianRoot = '/usr/lib/postgresql';

/**
 * The bin directory of the newest PostgreSQL Debian installed (`/usr/lib/postgresql/<major>/bin`, which is not on
 * PATH). @throws Error naming the install command when there is none.
 */
export function postgresBinDirectory(): string {
  const majors = existsSync(debianRoot)
    ? readdirSync(debianRoot)
        .filter((entry) => /^\d+$/u.test(entry) && existsSync(join(debianRoot, entry, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const [newest] = majors;
  if (newest === undefined) {
    throw new Error(
      `No PostgreSQL server binaries under ${debianRoot}/<major>/bin, and the PostgreSQL tests need a real server. ` +
        `Install them with \`${installPostgresCommand}\`, then run again.`,
    );
  }
  return join(debianRoot, newest, 'bin');
}

/** Where Debian's pgbouncer is. @throws Error naming the install command when it is missing. */
export function pgBouncerBinary(): string {
  for (const candidate of ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer']) {
    if (existsSync(candidate)) {
      return candidate;
    }
  }
  throw new Error(
    'pgbouncer was not found in /usr/sbin or /usr/bin, and the transaction-pooling tests need a real one. ' +
      `Install it with \`${installPostgresCommand}\`, then run again.`,
  );
}
