export { startRedisServer, type RedisServerProcess, type StartRedisServerOptions } from './start-redis-server.js';
export { startRedisCluster, type RedisClusterProcess } from './start-redis-cluster.js';
