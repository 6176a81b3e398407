export { RedisCheckpointStorage, type RedisCheckpointStorageOptions } from './redis-checkpoint-storage.js';
export type { RedisCheckpointClient, RedisCheckpointPipeline } from './redis-checkpoint-client.js';
export { CheckpointKeyLayout, defaultRedisVersionKeyPrefix, type CheckpointKeys } from './checkpoint-key-layout.js';
export { clusterHashedPart } from './cluster-hash-slot.js';
export { isCanonicalDecimal, storedVersion } from './script-reply.js';
export {
  assertRedisLeaseKeyPrefix,
  defaultRedisLeaseKeyPrefix,
  parseRedisLeaseKey,
  parseRedisLeaseValue,
  redisLeaseKeys,
  type ParsedRedisLeaseKey,
  type RedisLeaseKeys,
  type RedisLeaseValue,
} from './redis-lease-keys.js';
export type { RedisLeaseClient, RedisLeasePipeline } from './redis-lease-store.js';
export type { WaitForReplicas, WaitForReplicasOption } from './wait-for-replicas.js';
export { replicasListedIn } from './promotable-replicas.js';
export { promotableReplicasIn, sentinelViewIn, type SentinelView } from './sentinel-replicas.js';
export { RedisLeaseStrategy, type RedisLeaseStrategyOptions } from './redis-lease-strategy.js';
export {
  RedisDualAnchorCheckpointStore,
  type RedisDualAnchorCheckpointStoreOptions,
} from './redis-dual-anchor-checkpoint-store.js';
export type { RedisDualAnchorClient } from './redis-dual-anchor-client.js';
export {
  defaultRedisMembershipKeyPrefix,
  parseRedisMemberValue,
  RedisMembership,
  redisMembershipKeys,
  type RedisMemberValue,
  type RedisMembershipClient,
  type RedisMembershipKeys,
  type RedisMembershipOptions,
} from './redis-membership.js';
