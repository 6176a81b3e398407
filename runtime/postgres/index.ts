export type { PostgresClient, PostgresQueryResult, PostgresTableOptions } from './postgres-client.js';
export { PostgresCheckpointStorage, type PostgresCheckpointStorageOptions } from './postgres-checkpoint-storage.js';
export {
  PostgresDualAnchorCheckpointStore,
  type PostgresDualAnchorCheckpointStoreOptions,
} from './postgres-dual-anchor-checkpoint-store.js';
export { PostgresLeaseStrategy, type PostgresLeaseStrategyOptions } from './postgres-lease-strategy.js';
export {
  postgresInspectionStatements,
  type PostgresInspectionSettingNames,
  type PostgresInspectionStatements,
  type PostgresInspectionTables,
} from './postgres-inspection-statements.js';
export { parseStoredInteger } from './postgres-stored-integer.js';
export { PostgresMembership, type PostgresMembershipOptions } from './postgres-membership.js';
