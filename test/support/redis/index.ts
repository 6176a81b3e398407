export { startRedisServer, type RedisServerProcess, type StartRedisServerOptions } from './start-redis-server.js';
export { startRedisCluster, type RedisClusterProcess } from './start-redis-cluster.js';
export {
  startReplicatedRedisCluster,
  type ClusterDataServer,
  type ClusterFailoverOutcome,
  type ClusterShard,
  type ReplicatedRedisCluster,
} from './start-replicated-redis-cluster.js';
export { withAdminConnection, type RedisAddress } from './admin-connection.js';
export { RedisFrontDoor } from './redis-front-door.js';
export {
  replicationInfo,
  replicationTestArgs,
  startReplicatedRedis,
  waitUntilReplicating,
  type ReplicatedRedisProcess,
} from './start-replicated-redis.js';
export {
  startRedisSentinel,
  type FailoverOutcome,
  type PartitionSide,
  type RedisSentinelTopology,
  type SentinelDataServer,
  type SentinelOptions,
  type StartRedisSentinelOptions,
} from './start-redis-sentinel.js';
export { sentinelForThisFile, type SentinelForThisFile } from './sentinel-for-this-file.js';
export { useSharedRedis, useSharedRedisCluster, type SharedRedis, type SharedRedisCluster } from './shared-redis.js';
export type { SharedRedisClusterAddress, SharedRedisServerAddress } from './shared-redis-context.js';
export { startSharedRedisCluster, startSharedRedisServer } from './shared-redis-servers.js';
