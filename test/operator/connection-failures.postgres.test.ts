import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresCheckpointStorage, PostgresLeaseStrategy } from '../../runtime/index.js';
import { startPostgresServer, type PostgresServerProcess } from '../support/postgres/index.js';
import { builtBin, runCli } from './support/operator-cli.js';
import { itPrintsNoSecret } from './support/secret-urls.js';

// A server of its own: the suite gives the postgres role a password and makes loopback connections ask for it
// (pg_hba.conf, pg_reload_conf()), which no suite sharing a server may do. Trust stays on the Unix socket for the
// suite's own admin connection.

const password = 'correct-horse-battery';
let server: PostgresServerProcess;

beforeAll(async () => {
  builtBin();
  server = await startPostgresServer();
  const admin = new pg.Client({
    host: server.socketDirectory,
    port: server.port,
    user: 'postgres',
    database: 'postgres',
  });
  await admin.connect();
  try {
    await new PostgresCheckpointStorage(admin).createTable();
    await new PostgresLeaseStrategy(admin).createTable();
    await admin.query(`ALTER ROLE postgres PASSWORD '${password}'`);
    writeFileSync(
      join(server.dataDirectory, 'pg_hba.conf'),
      'local all all trust\nhost all all 127.0.0.1/32 scram-sha-256\n',
    );
    await admin.query('SELECT pg_reload_conf()');
  } finally {
    await admin.end();
  }
}, 180_000);

afterAll(async () => {
  await server.stop();
});

const at = (credentials: string): string => `postgres://${credentials}127.0.0.1:${server.port}/postgres`;

describe('credentials on a real PostgreSQL server', { timeout: 60_000 }, () => {
  it.each([
    ['inspect', ['inspect']],
    ['repair', ['repair', 'orders', '--raise-token']],
    ['reset', ['reset', 'orders', '--yes']],
  ])('%s: a wrong password gives one clear line and exit 2', async (command, args) => {
    const run = await runCli([...args, '--postgres', at('postgres:wrong-secret@')]);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      `checkpoint-fencing ${command}: ${at('postgres:***@')} refused the credentials (password authentication failed for user "postgres"); ` +
        'check the user name and password in the URL.\n',
    );
    expect(run.stderr).not.toContain('wrong-secret');
  });

  it('with the right password it reads, and prints the URL without it', async () => {
    const run = await runCli(['inspect', '--postgres', at(`postgres:${password}@`)]);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toBe(
      'replication: no standby streams from this primary\n' +
        `0 subscriptions, all healthy; 0 rows read from checkpoint_fencing_checkpoints and checkpoint_fencing_leases (${at('postgres:***@')}, ${/(\d+\.\d) s\)$/mu.exec(run.stdout)?.[1] ?? ''} s)\n`,
    );
    expect(run.stdout).not.toContain(password);
  });
});

describe('no secret is printed, whatever the command, the failure and where the URL holds it', () => {
  itPrintsNoSecret('--postgres', '/', () => ({
    scheme: 'postgres',
    host: `127.0.0.1:${server.port}`,
    path: '/postgres',
  }));
});
