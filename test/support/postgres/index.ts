export { installPostgresCommand, pgBouncerBinary, postgresBinDirectory } from './postgres-binaries.js';
export { postgresOsUserName } from './postgres-os-user.js';
export { startPgBouncer, type PgBouncerProcess, type StartPgBouncerOptions } from './start-pgbouncer.js';
export {
  startPostgresServer,
  startPostgresStandby,
  type PostgresConnectionDetails,
  type PostgresServerProcess,
  type StartPostgresServerOptions,
  type StartPostgresStandbyOptions,
} from './start-postgres-server.js';
export { freshTableName, rowCount, testPool } from './postgres-test-database.js';
export { RecordingPostgresClient } from './recording-postgres-client.js';
export { useSharedPostgres, type SharedPostgres } from './shared-postgres.js';
export { startSharedPostgresServer } from './shared-postgres-server.js';
export type { SharedPostgresServerAddress } from './shared-postgres-context.js';
export { pgBouncerForThisFile, type PgBouncerForThisFile } from './pgbouncer-for-this-file.js';
export { insideTransactions, type InsideTransactions } from './inside-transactions.js';
export { PostgresRelay } from './postgres-relay.js';
export {
  startReplicatedPostgres,
  type ReplicatedPostgres,
  type StartReplicatedPostgresOptions,
} from './start-replicated-postgres.js';
