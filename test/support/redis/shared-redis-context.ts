/** Where the run's shared standalone redis-server listens, and how many databases it has for suites to take. */
export interface SharedRedisServerAddress {
  readonly host: string;
  readonly port: number;
  readonly databases: number;
}

/** The masters of the run's shared three-master Redis Cluster. */
export interface SharedRedisClusterAddress {
  readonly nodes: readonly { readonly host: string; readonly port: number }[];
}

// What the shared-server global setup provides to the test files of a project; absent in a project without it.
declare module 'vitest' {
  export interface ProvidedContext {
    sharedRedisServer?: SharedRedisServerAddress;
    sharedRedisCluster?: SharedRedisClusterAddress;
  }
}
