export type { PostgresClient, PostgresQueryResult, PostgresTableOptions } from './postgres-client.js';
export {
  defaultCheckpointTable,
  PostgresCheckpointStorage,
  type PostgresCheckpointStorageOptions,
} from './postgres-checkpoint-storage.js';
export {
  PostgresDualAnchorCheckpointStore,
  type PostgresDualAnchorCheckpointStoreOptions,
} from './postgres-dual-anchor-checkpoint-store.js';
export {
  defaultLeaseTable,
  PostgresLeaseStrategy,
  type PostgresLeaseStrategyOptions,
} from './postgres-lease-strategy.js';
export { qualifiedTableName, type QualifiedTableName, type TableSettingNames } from './postgres-identifiers.js';
export { physicalWalSenders, promotable } from './standby-statement-forms.js';
export { parseStoredInteger } from './postgres-stored-integer.js';
export type { WaitForStandbysOption, WaitForStandbysOptions } from './wait-for-standbys.js';
export { defaultMembershipTable, PostgresMembership, type PostgresMembershipOptions } from './postgres-membership.js';
