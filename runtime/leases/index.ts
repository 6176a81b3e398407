export type { CompetingConsumerListener, CompetingConsumerStrategy } from './competing-consumer-strategy.js';
export { systemLeaseClock, type LeaseClock, type LeaseTimer } from './lease-clock.js';
export type { LeaseStore } from './lease-store.js';
export { LeaseKeepingStrategy, type LeaseKeepingStrategyOptions } from './lease-keeping-strategy.js';
export { InMemoryLeaseTable, type InMemoryLeaseTableOptions } from './in-memory-lease-table.js';
export { InMemoryLeaseStrategy, type InMemoryLeaseStrategyOptions } from './in-memory-lease-strategy.js';
export { defaultRedisLeaseKeyPrefix, redisLeaseKeys, type RedisLeaseKeys } from './redis-lease-keys.js';
export type { RedisLeaseClient, RedisLeasePipeline, WaitForReplicas } from './redis-lease-store.js';
export { RedisLeaseStrategy, type RedisLeaseStrategyOptions } from './redis-lease-strategy.js';
