export type { PostgresClient, PostgresQueryResult, PostgresTableOptions } from './postgres-client.js';
export { PostgresCheckpointStorage, type PostgresCheckpointStorageOptions } from './postgres-checkpoint-storage.js';
export { PostgresLeaseStrategy, type PostgresLeaseStrategyOptions } from './postgres-lease-strategy.js';
