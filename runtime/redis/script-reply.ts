import { formatWriteCondition, type CheckpointWriteCondition } from '../checkpoint-write-condition.js';
import { describeValue, quoteText } from '../describe-value.js';
import { CheckpointWriteConditionNotFulfilledError } from '../errors/checkpoint-write-condition-not-fulfilled-error.js';

/** What `String(bigint)` makes of a non-negative version: digits, no sign, no leading zero. */
const canonicalDecimal = /^(?:0|[1-9]\d*)$/;

/**
 * The one place a version-judging script's reply becomes an outcome, for the checkpoint storage and the dual-anchor
 * store alike: `accepted` returns; `refused:<stored>` throws the refusal for `id`, carrying the stored version;
 * `invalid:<stored>` throws {@link invalidStoredVersionError} for the version kept at `versionKey` (in hash field
 * `versionField`, when given); anything else is a reply none of these scripts sends. ioredis 5 and 6 give the reply as
 * a string, over RESP2 and RESP3.
 */
export function judgeScriptReply(
  reply: unknown,
  id: string,
  condition: CheckpointWriteCondition,
  versionKey: string,
  versionField?: string,
): void {
  if (reply === 'accepted') {
    return;
  }
  if (typeof reply === 'string') {
    if (reply.startsWith('refused:')) {
      const stored = reply.slice('refused:'.length);
      throw new CheckpointWriteConditionNotFulfilledError(
        id,
        condition,
        stored === '' ? undefined : storedVersion(stored, versionKey, versionField),
      );
    }
    if (reply.startsWith('invalid:')) {
      throw invalidStoredVersionError(reply.slice('invalid:'.length), versionKey, versionField);
    }
  }
  throw new Error(
    `The ${formatWriteCondition(condition)} script on ${quoteText(versionKey)} answered ${describeValue(reply)}, not "accepted", ` +
      '"refused:<version>" or "invalid:<value>". Another script with the same SHA-1 or a proxy rewriting replies is in the way; ' +
      'the write may or may not have happened.',
  );
}

/** The version `stored` holds, as a `bigint`; throws {@link invalidStoredVersionError} unless it is a canonical decimal. */
export function storedVersion(stored: string, versionKey: string, versionField?: string): bigint {
  if (!isCanonicalDecimal(stored)) {
    throw invalidStoredVersionError(stored, versionKey, versionField);
  }
  return BigInt(stored);
}

/** Whether `text` is a canonical non-negative decimal integer (digits only, no leading zero): how versions and tokens are stored. */
export function isCanonicalDecimal(text: string): boolean {
  return canonicalDecimal.test(text);
}

/**
 * The error for a stored version that is not a canonical non-negative decimal, naming where it is kept and what it
 * holds: no version can be judged against it, so every conditional write there is stopped before it writes.
 */
export function invalidStoredVersionError(stored: string, versionKey: string, versionField?: string): Error {
  const [where, fix] =
    versionField === undefined
      ? [`Version key ${quoteText(versionKey)}`, 'delete the key or write a canonical decimal version to it']
      : [
          `Field ${JSON.stringify(versionField)} of key ${quoteText(versionKey)}`,
          'delete the field or write a canonical decimal version to it with HSET',
        ];
  return new Error(
    `${where} holds ${quoteText(stored)}, not a canonical non-negative decimal integer (digits only, no leading zero), so ` +
      'no version can be judged against it and nothing was written. Something other than a fenced writer wrote it; ' +
      `${fix}.`,
  );
}
