import { describeValue } from '../describe-value.js';

/** Throws `TypeError` unless both ids are non-empty strings; a lease on an empty id would name no subscription. */
export function assertLeaseIds(subscriptionId: unknown, subscriberId: unknown): asserts subscriptionId is string {
  if (typeof subscriptionId !== 'string' || subscriptionId === '') {
    throw new TypeError(`subscriptionId must be a non-empty string, got ${describeValue(subscriptionId)}.`);
  }
  if (typeof subscriberId !== 'string' || subscriberId === '') {
    throw new TypeError(`subscriberId must be a non-empty string, got ${describeValue(subscriberId)}.`);
  }
}
