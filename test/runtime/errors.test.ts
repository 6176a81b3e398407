import { describe, expect, it } from 'vitest';
import {
  CheckpointWriteCondition,
  CheckpointWriteConditionNotFulfilledError,
  CheckpointWriteNotReplicatedError,
  StartPositionAlreadyPinnedError,
  StorageCannotBeFencedError,
  UnsupportedWriteConditionError,
} from '../../runtime/index.js';

describe('errors', () => {
  it('CheckpointWriteConditionNotFulfilledError carries id, condition and stored version, and names them', () => {
    const condition = CheckpointWriteCondition.notOlderThan(7);
    const error = new CheckpointWriteConditionNotFulfilledError('orders', condition, 9n);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('CheckpointWriteConditionNotFulfilledError');
    expect(error.subscriptionId).toBe('orders');
    expect(error.condition).toBe(condition);
    expect(error.storedVersion).toBe(9n);
    expect(error.message).toBe(
      'Checkpoint write for subscription "orders" refused: notOlderThan(7) does not hold, a newer writer holds the subscription (stored version 9). ' +
        'The checkpoint was left unchanged; do not retry this write, the lease has moved on.',
    );
  });

  it('quote ids with every control and bidi character escaped, so that none acts on the terminal showing them', () => {
    // U+009B is an 8-bit CSI (ESC [): "\u009b2J" clears a VT220-style terminal; after U+202E a line shows reversed.
    const id = 'a\u001bb\u007fc\u009b2Jd\u202ee\u2066f\u200fg\u2028h';
    const { message } = new CheckpointWriteConditionNotFulfilledError(
      id,
      CheckpointWriteCondition.notOlderThan(1n),
      2n,
    );
    expect(message).toContain('"a\\u001bb\\u007fc\\u009b2Jd\\u202ee\\u2066f\\u200fg\\u2028h"');
    expect(message).not.toMatch(/[\p{Cc}\p{Bidi_Control}\u2028\u2029]/u);
    expect(new StartPositionAlreadyPinnedError('\u202eorders', '\u009b7').message).toMatch(
      /^Start position "\\u009b7" for subscription "\\u202eorders"/u,
    );
  });

  it('CheckpointWriteConditionNotFulfilledError explains an ifAbsent refusal and a missing stored version', () => {
    const error = new CheckpointWriteConditionNotFulfilledError('orders', CheckpointWriteCondition.ifAbsent());
    expect(error.storedVersion).toBeUndefined();
    expect(error.message).toContain('ifAbsent() does not hold, a checkpoint is already stored');
  });

  it('CheckpointWriteNotReplicatedError is a "maybe", not a refusal: it says so, and is no CheckpointWriteConditionNotFulfilledError', () => {
    const error = new CheckpointWriteNotReplicatedError({
      subscriptionId: 'orders',
      operation: 'notOlderThan(7)',
      replicas: 1,
      acknowledged: 0,
      timeoutMs: 500,
    });
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(CheckpointWriteConditionNotFulfilledError);
    expect(error.name).toBe('CheckpointWriteNotReplicatedError');
    expect(error).toMatchObject({
      subscriptionId: 'orders',
      operation: 'notOlderThan(7)',
      replicas: 1,
      acknowledged: 0,
      timeoutMs: 500,
    });
    expect(error.message).toBe(
      'Checkpoint write notOlderThan(7) for subscription "orders" was applied on the master, but 0 of the 1 replica it waits for ' +
        'acknowledged it within 500 ms: it may or may not survive a failover. This is not a refusal and the lease has not moved on, ' +
        'so do not treat it as one: read the checkpoint back, or write again with the same token once the replicas have caught ' +
        "up (a later write they acknowledge carries this one with it). waitForReplicas 'auto' waits for every replica that " +
        "could be promoted in the master's place (ADRs 1104-1106): check that each is up and replicating (npx " +
        'checkpoint-fencing inspect --redis). One removed for good is waited for until this process restarts (it remembers ' +
        'the replicas a master listed under its replication ID), once the Sentinels or the Cluster no longer list it ' +
        '(SENTINEL RESET, CLUSTER FORGET). waitForReplicas false writes without waiting (unsafe on failover; doc/redis.md).',
    );
    // A PostgreSQL store's write, which waited for standbys.
    const { subscriptionId, operation, replicas, acknowledged, timeoutMs } = error;
    const onStandbys = { subscriptionId, operation, replicas, acknowledged, timeoutMs, waitedFor: 'standbys' as const };
    expect(new CheckpointWriteNotReplicatedError(onStandbys).message).toBe(
      'Checkpoint write notOlderThan(7) for subscription "orders" was committed on the primary, but 0 of the 1 standby it ' +
        'waits for had written it within 500 ms: it may or may not survive a failover. This is not a refusal and the lease ' +
        'has not moved on, so do not treat it as one: read the checkpoint back, or write again with the same token once ' +
        'replication has caught up. Check the standbys streaming from the primary, which waitForStandbys waits for (ADR ' +
        '0806): pg_stat_replication on the primary, or npx checkpoint-fencing inspect --postgres. Set waitForStandbys to ' +
        'false to write without waiting for them (unsafe on failover).',
    );
  });

  it('CheckpointWriteNotReplicatedError with a count says why that many replicas were waited for', () => {
    const reason = new Error('Waited for 2 because the Sentinels list 2 replicas that could be promoted.');
    const error = new CheckpointWriteNotReplicatedError({
      subscriptionId: 'orders',
      operation: 'ifAbsent()',
      replicas: 2,
      acknowledged: 1,
      timeoutMs: 500,
      cause: reason,
    });
    expect(error.cause).toBe(reason);
    expect(error.message).toMatch(
      /^Checkpoint write ifAbsent\(\) for subscription "orders" was applied on the master, but 1 of the 2 replicas it waits for acknowledged it within 500 ms: it may or may not survive a failover\. Waited for 2 because the Sentinels list 2 replicas that could be promoted\. This is not a refusal/u,
    );
  });

  it('CheckpointWriteNotReplicatedError names a WAIT that failed, and keeps its cause', () => {
    const cause = new Error('Connection is closed.');
    const error = new CheckpointWriteNotReplicatedError({
      subscriptionId: 'orders',
      operation: 'advanceWriteVersion(3)',
      replicas: 2,
      acknowledged: undefined,
      timeoutMs: 500,
      cause,
    });
    expect(error.cause).toBe(cause);
    expect(error.acknowledged).toBeUndefined();
    expect(error.message).toMatch(
      /^Checkpoint write advanceWriteVersion\(3\) for subscription "orders" was applied on the master, but WAIT for 2 replicas failed \(Error: Connection is closed\.\): it may or may not survive a failover\./u,
    );
  });

  it('UnsupportedWriteConditionError has the exact message generated code relies on', () => {
    const error = new UnsupportedWriteConditionError(CheckpointWriteCondition.notOlderThan(7));
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('UnsupportedWriteConditionError');
    expect(error.message).toBe('This storage cannot evaluate notOlderThan(7), only any() is supported.');
    expect(new UnsupportedWriteConditionError(CheckpointWriteCondition.ifAbsent()).message).toBe(
      'This storage cannot evaluate ifAbsent(), only any() is supported.',
    );
  });

  it('StartPositionAlreadyPinnedError names the subscription and the candidate', () => {
    const error = new StartPositionAlreadyPinnedError('orders', 'offset-4');
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('StartPositionAlreadyPinnedError');
    expect(error.subscriptionId).toBe('orders');
    expect(error.candidate).toBe('offset-4');
    expect(error.message).toMatch(
      /^Start position "offset-4" for subscription "orders" was not pinned: ifAbsent\(\) was refused/,
    );
  });

  it('StorageCannotBeFencedError names the storage, and the id when the refusal is per id', () => {
    const whole = new StorageCannotBeFencedError('LegacyStorage');
    expect(whole.name).toBe('StorageCannotBeFencedError');
    expect(whole.message).toMatch(/^LegacyStorage cannot be fenced: evaluatesWriteConditions\(\) answers false/);
    const perId = new StorageCannotBeFencedError('RedisCheckpointStorage', '{}orders');
    expect(perId.subscriptionId).toBe('{}orders');
    expect(perId.message).toMatch(/^RedisCheckpointStorage cannot fence subscription "\{\}orders"/);
  });
});
