export { RedisCheckpointStorage, type RedisCheckpointStorageOptions } from './redis-checkpoint-storage.js';
export type { RedisCheckpointClient } from './redis-checkpoint-client.js';
