import { describeValue } from '../describe-value.js';

/**
 * Throws `TypeError` unless `id` is a non-empty, well-formed UTF-16 string: the rule subscription ids follow, applied
 * here to stream names and instance ids. A lone surrogate would reach Redis or PostgreSQL as a replacement character,
 * so two different names could share one record. `what` names the argument in the message.
 */
export function assertWellFormedId(id: unknown, what: string): asserts id is string {
  if (typeof id === 'string' && id !== '' && isWellFormed(id)) {
    return;
  }
  const problem =
    typeof id !== 'string'
      ? `got ${describeValue(id)}`
      : id === ''
        ? 'got an empty string'
        : `got ${describeValue(id)}, which holds a lone surrogate (not well-formed UTF-16)`;
  throw new TypeError(`${what} must be a non-empty, well-formed UTF-16 string, ${problem}.`);
}

/** `String.prototype.isWellFormed` (Node 20+), typed here because the project's `lib` stops at ES2023. */
function isWellFormed(text: string): boolean {
  return (text as string & { isWellFormed(): boolean }).isWellFormed();
}

/** Throws `TypeError` unless `streamName` is a non-empty, well-formed UTF-16 string; every dual-anchor store checks it first. */
export function assertStreamName(streamName: unknown): asserts streamName is string {
  assertWellFormedId(streamName, 'streamName');
}
