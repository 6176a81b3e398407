export { RedisCheckpointStorage, type RedisCheckpointStorageOptions } from './redis-checkpoint-storage.js';
export type { RedisCheckpointClient, RedisCheckpointPipeline } from './redis-checkpoint-client.js';
export { defaultRedisLeaseKeyPrefix, redisLeaseKeys, type RedisLeaseKeys } from './redis-lease-keys.js';
export type { RedisLeaseClient, RedisLeasePipeline } from './redis-lease-store.js';
export type { WaitForReplicas, WaitForReplicasOption } from './wait-for-replicas.js';
export { RedisLeaseStrategy, type RedisLeaseStrategyOptions } from './redis-lease-strategy.js';
export {
  RedisDualAnchorCheckpointStore,
  type RedisDualAnchorCheckpointStoreOptions,
} from './redis-dual-anchor-checkpoint-store.js';
export type { RedisDualAnchorClient } from './redis-dual-anchor-client.js';
