const decimal = /^\d+$/;

/** What a version-judging script answered: accepted, or refused with the stored version (`undefined` when none). */
export type ScriptOutcome = { readonly accepted: true } | { readonly accepted: false; readonly storedVersion?: bigint };

/**
 * Reads a script's reply, `accepted` or `refused:<stored version>` (ioredis 5 and 6 give it as a string, over RESP2
 * and RESP3). `operation` names the script in the error for any other reply, e.g. `notOlderThan(7)`.
 */
export function parseScriptReply(reply: unknown, operation: string): ScriptOutcome {
  if (reply === 'accepted') {
    return { accepted: true };
  }
  if (typeof reply === 'string' && reply.startsWith('refused:')) {
    const stored = reply.slice('refused:'.length);
    if (stored === '') {
      return { accepted: false };
    }
    if (decimal.test(stored)) {
      return { accepted: false, storedVersion: BigInt(stored) };
    }
  }
  throw new Error(
    `The ${operation} script answered ${JSON.stringify(reply)}, not "accepted" or "refused:<version>". ` +
      'Another script with the same SHA-1 or a proxy rewriting replies is in the way; the write may or may not have happened.',
  );
}
