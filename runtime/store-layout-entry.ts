// `checkpoint-fencing/store-layout`: where the storages and lease strategies keep what they write, how the runtime
// reads it back, and how it counts the replicas and standbys a write waits for. For tools that read or repair a store
// directly, such as checkpoint-fencing-cli, which must agree with the runtime byte for byte (doc/adr/1006); an
// application needs none of it. It changes with the stored formats, in step with the runtime's minor version.
export {
  assertRedisLeaseKeyPrefix,
  CheckpointKeyLayout,
  clusterHashedPart,
  defaultRedisLeaseKeyPrefix,
  defaultRedisMembershipKeyPrefix,
  defaultRedisVersionKeyPrefix,
  isCanonicalDecimal,
  parseRedisLeaseKey,
  parseRedisLeaseValue,
  parseRedisMemberValue,
  promotableReplicasIn,
  redisLeaseKeys,
  redisMembershipKeys,
  replicasListedIn,
  sentinelViewIn,
  storedVersion,
  type CheckpointKeys,
  type ParsedRedisLeaseKey,
  type RedisLeaseKeys,
  type RedisLeaseValue,
  type RedisMembershipKeys,
  type RedisMemberValue,
  type SentinelView,
} from './redis/index.js';
export {
  defaultCheckpointTable,
  defaultLeaseTable,
  defaultMembershipTable,
  parseStoredInteger,
  physicalWalSenders,
  promotable,
  qualifiedTableName,
  type QualifiedTableName,
  type TableSettingNames,
} from './postgres/index.js';
