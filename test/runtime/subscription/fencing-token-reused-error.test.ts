import { describe, expect, it } from 'vitest';
import {
  CheckpointWriteCondition,
  CheckpointWriteConditionNotFulfilledError,
  FencingTokenReusedError,
} from '../../../runtime/index.js';

describe('FencingTokenReusedError', () => {
  it('is a refusal carrying the token as the stored version, and names where the counter lives for every backend', () => {
    const error = new FencingTokenReusedError('orders', 7n);
    expect(error).toBeInstanceOf(CheckpointWriteConditionNotFulfilledError);
    expect(error).toMatchObject({
      name: 'FencingTokenReusedError',
      subscriptionId: 'orders',
      storedVersion: 7n,
      condition: CheckpointWriteCondition.notOlderThan(7n),
    });
    expect(error.message).toBe(
      'Subscription "orders" was granted token 7, but version 7 is already stored by another holder: the token counter ' +
        'was lost and minted it twice, and the fence cannot tell two holders of one token apart. Nothing was written; ' +
        'this node raises the token floor above it and gives the lease up. Never delete where the strategy keeps its ' +
        'token counter (the token key in Redis, the lease row in PostgreSQL).',
    );
  });
});
