/** The metrics the package records, by name (doc/observability.md). */
export const METRIC_NAMES = {
  checkpointWrites: 'checkpoint_fencing.checkpoint.writes',
  checkpointWriteDuration: 'checkpoint_fencing.checkpoint.write.duration',
  leaseGrants: 'checkpoint_fencing.lease.grants',
  leaseLosses: 'checkpoint_fencing.lease.losses',
  leaseHeld: 'checkpoint_fencing.lease.held',
  subscriptionEvents: 'checkpoint_fencing.subscription.events',
  subscriptionHandlerDuration: 'checkpoint_fencing.subscription.handler.duration',
  subscriptionRefusals: 'checkpoint_fencing.subscription.refusals',
  subscriptionLag: 'checkpoint_fencing.subscription.lag',
  partitionsOwned: 'checkpoint_fencing.partitions.owned',
  partitionRebalances: 'checkpoint_fencing.partition.rebalances',
  partitionHandoverDuration: 'checkpoint_fencing.partition.handover.duration',
  partitionUnownedDuration: 'checkpoint_fencing.partition.unowned.duration',
} as const;

/**
 * Bucket boundaries of the duration histograms, in seconds: from an in-memory write (microseconds) to a handler or a
 * write stuck behind a failover (seconds). The SDK's default boundaries (0 to 10 000) suit milliseconds and would put
 * every write in the first bucket.
 */
export const DURATION_BUCKETS_SECONDS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/** The spans the package starts, by name. */
export const SPAN_NAMES = {
  checkpointWrite: 'checkpoint_fencing.checkpoint.write',
  subscriptionHandle: 'checkpoint_fencing.subscription.handle',
} as const;

/** The attributes of those metrics and spans, by name; each has a small fixed set of values but the opt-in id. */
export const ATTRIBUTE_NAMES = {
  outcome: 'checkpoint_fencing.outcome',
  condition: 'checkpoint_fencing.condition',
  backend: 'checkpoint_fencing.backend',
  anchor: 'checkpoint_fencing.anchor',
  subscriptionId: 'checkpoint_fencing.subscription.id',
} as const;

/** The `checkpoint_fencing.backend` of a built-in storage or dual-anchor store. */
export type StorageBackend = 'memory' | 'redis' | 'postgres';

/** The `checkpoint_fencing.anchor` of a dual-anchor write; a whole-record `save` has none. */
export type DualAnchorName = 'seen' | 'processed' | 'heartbeat' | 'reset';
