import { describeValue, quoteText } from './describe-value.js';

// The one rule for the ids and texts that become keys: every storage, lease store, subscription and dual-anchor store
// checks its arguments with these functions where the public API is entered, before any I/O.

/**
 * Throws `TypeError` unless `subscriptionId` is a string of well-formed UTF-16. A lone surrogate would be stored as
 * U+FFFD by Redis and PostgreSQL (and in a SHA-256 of its UTF-8 bytes), so `'a\uD800'` and `'a\uDC00'` would share
 * one checkpoint and one fencing version. The empty string is a valid storage id; the lease layer refuses it.
 */
export function assertSubscriptionId(subscriptionId: unknown): asserts subscriptionId is string {
  assertWellFormedString(subscriptionId, 'subscriptionId');
}

/**
 * Throws `TypeError` unless `subscriptionId` is an id a lease can be taken on: a non-empty string of well-formed
 * UTF-16. `DurableSubscription.subscribe` applies it too, so an id no strategy would accept is refused at once.
 */
export function assertLeasedSubscriptionId(subscriptionId: unknown): asserts subscriptionId is string {
  assertSubscriptionId(subscriptionId);
  if (subscriptionId === '') {
    throw new TypeError(
      'subscriptionId must not be empty: a lease on an empty id would name no subscription. Give the subscription a name.',
    );
  }
}

/** Throws `TypeError` unless `subscriberId` is a non-empty string of well-formed UTF-16 (it is part of a lease's owner). */
export function assertSubscriberId(subscriberId: unknown): asserts subscriberId is string {
  assertNonEmptyId(subscriberId, 'subscriberId');
}

/**
 * Throws `TypeError` unless `streamName` is a non-empty string of well-formed UTF-16: the key of a dual-anchor record,
 * checked by every dual-anchor store before anything is sent, so two names never share one record.
 */
export function assertStreamName(streamName: unknown): asserts streamName is string {
  assertNonEmptyId(streamName, 'streamName');
}

/** Both ids of a lease call, subscription id first. */
export function assertLeaseIds(subscriptionId: unknown, subscriberId: unknown): asserts subscriptionId is string {
  assertLeasedSubscriptionId(subscriptionId);
  assertSubscriberId(subscriberId);
}

/**
 * `String.prototype.isWellFormed` (ES2024, in every Node this package supports), typed here rather than through the
 * ES2024 lib, so that the runtime's source also type-checks in projects whose `lib` stops at ES2023.
 */
interface MaybeWellFormed {
  isWellFormed(): boolean;
}

/** Throws `TypeError` unless `id` is a non-empty string of well-formed UTF-16; `what` names the argument in the message. */
export function assertNonEmptyId(id: unknown, what: string): asserts id is string {
  if (typeof id !== 'string' || id === '') {
    throw new TypeError(`${what} must be a non-empty string, got ${describeValue(id)}.`);
  }
  assertWellFormed(id, what);
}

/** Throws `TypeError` unless `text` is a string of well-formed UTF-16 (empty allowed); `what` names the argument. */
export function assertWellFormedString(text: unknown, what: string): asserts text is string {
  if (typeof text !== 'string') {
    throw new TypeError(`${what} must be a string, got ${describeValue(text)}.`);
  }
  assertWellFormed(text, what);
}

/** Throws `TypeError` when `text` holds a lone surrogate; `what` names the argument in the message. */
export function assertWellFormed(text: string, what: string): void {
  if (!(text as unknown as MaybeWellFormed).isWellFormed()) {
    throw new TypeError(
      `${what} ${quoteText(text)} is not well-formed UTF-16: it holds a lone surrogate, which would be stored as U+FFFD, so ` +
        `two different values could collide. Pass a well-formed string (${what}.toWellFormed() replaces lone surrogates).`,
    );
  }
}
