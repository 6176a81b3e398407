import { expect } from 'vitest';
import { CheckpointWriteConditionNotFulfilledError } from '../index.js';

/**
 * Asserts that `write` rejects with `CheckpointWriteConditionNotFulfilledError` for `subscriptionId` (a stream name for
 * a dual-anchor store), carrying `storedVersion`; resolves to the refusal for further checks.
 */
export async function expectRefused(
  write: Promise<unknown>,
  subscriptionId: string,
  storedVersion: bigint | undefined,
): Promise<CheckpointWriteConditionNotFulfilledError> {
  const error = await write.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(CheckpointWriteConditionNotFulfilledError);
  const refusal = error as CheckpointWriteConditionNotFulfilledError;
  expect(refusal.subscriptionId).toBe(subscriptionId);
  expect(refusal.storedVersion).toBe(storedVersion);
  return refusal;
}
