// The PostgreSQL demo: a projection and its checkpoint committed in one transaction, and a zombie's late work
// rolled back by the fence. Usage:
//   npm run example:postgres [-- --postgres postgresql://user@host:5432/db]
// Without --postgres it starts its own throwaway PostgreSQL server (Debian's, as the tests do) and removes it after.
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startPostgresServer } from '../../test/support/postgres/index.js';
import { runZombieDemo } from './zombie-demo.js';

const say = (line: string): void => {
  console.log(`[postgres demo] ${line}`);
};
const { values } = parseArgs({ options: { postgres: { type: 'string' } } });
const ownServer = values.postgres === undefined ? await startPostgresServer() : undefined;
const pool = new pg.Pool({ connectionString: values.postgres ?? ownServer?.connectionString });
pool.on('error', (error) => {
  say(`an idle connection failed: ${error.message}`);
});
try {
  say(`PostgreSQL at ${values.postgres ?? `${ownServer?.connectionString ?? ''} (started by the demo)`}`);
  const outcome = await runZombieDemo(pool, say);
  say(`checkpoint ${outcome.checkpoint ?? 'none'}; order_status rows:`);
  for (const row of outcome.rows) {
    say(`  ${row.order_id} at position ${row.position}, written with token ${row.written_with_token}`);
  }
} catch (error) {
  say(`FAILED: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await pool.end();
  await ownServer?.stop();
}
