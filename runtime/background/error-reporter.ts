/** Told about a failure that a background loop cannot throw to anyone. */
export type ErrorHandler<Context extends readonly unknown[]> = (error: unknown, ...context: Context) => void;

/**
 * Wraps the user's `onError` so that a handler that throws never stops the loop that reports to it. Without one, the
 * failure becomes a console warning that starts with `checkpoint-fencing:` and says, through `describe`, where it
 * happened and what the loop does next.
 */
export function errorReporter<Context extends readonly unknown[]>(
  onError: ErrorHandler<Context> | undefined,
  describe: (...context: Context) => string,
): ErrorHandler<Context> {
  const handler: ErrorHandler<Context> =
    onError ??
    ((error, ...context) => {
      console.warn(`checkpoint-fencing: ${describe(...context)}:`, error instanceof Error ? errorLine(error) : error);
    });
  return (error, ...context) => {
    try {
      handler(error, ...context);
    } catch {
      // An error handler that throws must not stop delivery or lease keeping.
    }
  };
}

function errorLine(error: Error): string {
  return `${error.name}: ${error.message}`;
}
