export { InMemoryCheckpointStorage, type InMemoryCheckpointStorageOptions } from './in-memory-checkpoint-storage.js';
export { InMemoryLeaseTable, type InMemoryLeaseTableOptions } from './in-memory-lease-table.js';
export { InMemoryLeaseStrategy, type InMemoryLeaseStrategyOptions } from './in-memory-lease-strategy.js';
export { InMemoryDualAnchorCheckpointStore } from './in-memory-dual-anchor-checkpoint-store.js';
export { InMemoryMembershipTable, type InMemoryMembershipTableOptions } from './in-memory-membership-table.js';
export { InMemoryMembership, type InMemoryMembershipOptions } from './in-memory-membership.js';
