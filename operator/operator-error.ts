/**
 * A failure the operator commands report as one line on stderr with exit code 2: bad arguments, a server that cannot
 * be reached or refuses the credentials, a missing package. The message names the thing, the reason and the fix.
 */
export class OperatorError extends Error {
  override readonly name: string = 'OperatorError';
}

/** Bad arguments: reported like any {@link OperatorError}, followed by a pointer to `--help`. */
export class OperatorUsageError extends OperatorError {
  override readonly name: string = 'OperatorUsageError';
}
