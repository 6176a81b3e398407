/** The part of an ioredis `Cluster` that reloads its slot map; a standalone client has none. */
export interface SlotMapClient {
  refreshSlotsCache?(): unknown;
}

/**
 * Throws the error of a pipeline's first command, the keyed one that routes it to the key's master, after asking a
 * Cluster client to reload its slot map when the error is a redirection (`MOVED`, `ASK`). ioredis follows a
 * redirection of a lone command, but of a pipeline only when every command in it is read-only, and `WAIT` and `INFO`
 * are not: the pipeline ran them on a node that does not hold the key, so their replies say nothing of its master
 * (a `WAIT` on a connection with no write answers at once), and the client would go on sending there.
 */
export function assertRouted(client: SlotMapClient, results: readonly [Error | null, unknown][] | null): void {
  const [error] = results?.[0] ?? [new Error('The pipeline gave no reply to the command that routes it.')];
  if (error === null) {
    return;
  }
  if (/^(MOVED|ASK) /u.test(error.message)) {
    client.refreshSlotsCache?.();
  }
  throw error;
}
