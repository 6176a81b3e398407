import { describeValue, quoteText } from '../describe-value.js';

/** What {@link CheckpointWriteNotReplicatedError} reports about one write. */
export interface CheckpointWriteNotReplicatedDetails {
  readonly subscriptionId: string;
  /** The write as called: `notOlderThan(7)`, `ifAbsent()` or `advanceWriteVersion(7)`. */
  readonly operation: string;
  /** How many replicas the write waited for. */
  readonly replicas: number;
  /** How many acknowledged it before `WAIT` timed out; `undefined` when `WAIT` itself failed (see `cause`). */
  readonly acknowledged: number | undefined;
  readonly timeoutMs: number;
  /** Why `WAIT` failed, when it did not answer with a count. */
  readonly cause?: unknown;
  /** What the write waited for: Redis replicas (`WAIT`, the default) or PostgreSQL standbys (`waitForStandbys`). */
  readonly waitedFor?: 'replicas' | 'standbys';
}

/**
 * A conditional checkpoint write that the master applied, but that fewer replicas than it waits for (`waitForReplicas`,
 * or on PostgreSQL fewer standbys than `waitForStandbys` asks for) acknowledged in time: it may or may not survive a failover. Not a refusal, and deliberately not a
 * `CheckpointWriteConditionNotFulfilledError`: the condition held and the lease has not moved on. Treat it like a
 * connection error: the outcome is unknown; read back or write again with the same token.
 */
export class CheckpointWriteNotReplicatedError extends Error {
  override readonly name = 'CheckpointWriteNotReplicatedError';
  readonly subscriptionId: string;
  readonly operation: string;
  readonly replicas: number;
  readonly acknowledged: number | undefined;
  readonly timeoutMs: number;

  constructor(details: CheckpointWriteNotReplicatedDetails) {
    super(notReplicatedMessage(details), details.cause === undefined ? undefined : { cause: details.cause });
    this.subscriptionId = details.subscriptionId;
    this.operation = details.operation;
    this.replicas = details.replicas;
    this.acknowledged = details.acknowledged;
    this.timeoutMs = details.timeoutMs;
  }
}

function notReplicatedMessage(details: CheckpointWriteNotReplicatedDetails): string {
  if (details.waitedFor === 'standbys') {
    return notOnStandbysMessage(details);
  }
  const { subscriptionId, operation, replicas, acknowledged, timeoutMs, cause } = details;
  const shortfall =
    acknowledged === undefined
      ? `WAIT for ${replicas} replica${replicas === 1 ? '' : 's'} failed (${String(cause)})`
      : `${acknowledged} of the ${replicas} replica${replicas === 1 ? '' : 's'} it waits for acknowledged it within ${timeoutMs} ms`;
  // With a count, the cause says why that many were waited for (more than the master listed).
  const why =
    acknowledged === undefined || cause === undefined
      ? ''
      : ` ${cause instanceof Error ? cause.message : describeValue(cause)}`;
  return (
    `Checkpoint write ${operation} for subscription ${quoteText(subscriptionId)} was applied on the master, but ${shortfall}: ` +
    `it may or may not survive a failover.${why} This is not a refusal and the lease has not moved on, so do not treat it as ` +
    'one: read the checkpoint back, or write again with the same token once the replicas have caught up (a later write ' +
    "they acknowledge carries this one with it). waitForReplicas 'auto' waits for every replica that could be promoted " +
    "in the master's place (ADRs 1104-1106): check that each is up and replicating (npx checkpoint-fencing inspect " +
    '--redis). One removed for good is waited for until this process restarts (it remembers the replicas a master ' +
    'listed under its replication ID), once the Sentinels or the Cluster no longer list it (SENTINEL RESET, CLUSTER ' +
    'FORGET). waitForReplicas false writes without waiting (unsafe on failover; doc/redis.md).'
  );
}

function notOnStandbysMessage(details: CheckpointWriteNotReplicatedDetails): string {
  const { subscriptionId, operation, replicas, acknowledged, timeoutMs, cause } = details;
  const standbys = `${replicas} standby${replicas === 1 ? '' : 's'}`;
  const shortfall =
    acknowledged === undefined
      ? `waiting for ${standbys} failed (${String(cause)})`
      : `${acknowledged} of the ${standbys} it waits for had written it within ${timeoutMs} ms`;
  return (
    `Checkpoint write ${operation} for subscription ${quoteText(subscriptionId)} was committed on the primary, but ${shortfall}: ` +
    'it may or may not survive a failover. This is not a refusal and the lease has not moved on, so do not treat it as one: ' +
    'read the checkpoint back, or write again with the same token once replication has caught up. Check the standbys ' +
    'streaming from the primary, which waitForStandbys waits for (ADR 0806): pg_stat_replication on the primary, or ' +
    'npx checkpoint-fencing inspect --postgres. Set waitForStandbys to false to write without waiting for them (unsafe on failover).'
  );
}
