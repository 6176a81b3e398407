export { installPostgresCommand, pgBouncerBinary, postgresBinDirectory } from './postgres-binaries.js';
export { postgresOsUserName } from './postgres-os-user.js';
export { startPgBouncer, type PgBouncerProcess, type StartPgBouncerOptions } from './start-pgbouncer.js';
export {
  startPostgresServer,
  type PostgresConnectionDetails,
  type PostgresServerProcess,
  type StartPostgresServerOptions,
} from './start-postgres-server.js';
export { freshTableName, rowCount, testPool } from './postgres-test-database.js';
export { RecordingPostgresClient } from './recording-postgres-client.js';
export { postgresForThisFile, type PostgresForThisFile } from './postgres-for-this-file.js';
