const cleanups = new Set<() => void>();
let installed = false;

function runAll(): void {
  for (const cleanup of cleanups) {
    try {
      cleanup();
    } catch {
      // Best effort on the way out: one failed cleanup must not keep the others from running.
    }
  }
  cleanups.clear();
}

/**
 * Runs `cleanup` (synchronously) when the process exits, or is stopped by SIGINT, SIGTERM or SIGHUP, unless the
 * returned function is called first. A PostgreSQL server started with pg_ctl runs detached from this process, so
 * without this a soak or demo stopped with Ctrl-C would leave it running. After cleaning up, a signal is raised again
 * with its default behaviour, so the process still ends the way it would have.
 */
export function cleanUpOnExit(cleanup: () => void): () => void {
  if (!installed) {
    installed = true;
    process.once('exit', runAll);
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
      const onSignal = (): void => {
        runAll();
        if (process.listenerCount(signal) === 0) {
          process.kill(process.pid, signal);
        }
      };
      process.once(signal, onSignal);
    }
  }
  cleanups.add(cleanup);
  return () => {
    cleanups.delete(cleanup);
  };
}
