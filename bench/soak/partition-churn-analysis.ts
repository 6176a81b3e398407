/** One handled event as a node recorded it: its projection write, stamped with the partition's token, accepted. */
export interface ChurnHandled {
  readonly nodeId: string;
  readonly partition: number;
  readonly position: number;
  readonly token: bigint;
  /** When the write was sent and when its acceptance came back, by the machine's clock. */
  readonly sentAt: number;
  readonly at: number;
}

/** What the store held at one moment: each partition's checkpoint (0 when none) and whether a lease is live. */
export interface ChurnSample {
  readonly at: number;
  readonly checkpoints: readonly number[];
  readonly leased: readonly boolean[];
}

/** The anomalies the churn soak counts; every one is 0 in a run that holds the promises. */
export interface ChurnAnomalies {
  /** Samples in which a partition's checkpoint was below the one the sample before held. */
  readonly checkpointBackward: number;
  /** Positions of the log (those `expected` says) that no node recorded handling. */
  readonly notHandled: number;
  /**
   * Accepted writes of a partition stamped with a token below one a write of another tenure had been accepted with
   * before this one was sent: two tenures' writes both accepted out of order.
   */
  readonly overlappingAccepts: number;
  /** Stretches in which a partition had no live lease for longer than `unownedLimitMs`. */
  readonly unownedTooLong: number;
  /** The longest stretch without a live lease, over every partition. */
  readonly longestUnownedMs: number;
}

/**
 * Counts the anomalies of a churn soak's full history: `handled` (every node's accepted writes), `samples` (the
 * store read every few milliseconds), and `expected` (the positions that must each be handled at least once).
 */
export function analyseChurn(
  handled: readonly ChurnHandled[],
  samples: readonly ChurnSample[],
  expected: readonly number[],
  unownedLimitMs: number,
): ChurnAnomalies {
  let checkpointBackward = 0;
  for (let index = 1; index < samples.length; index += 1) {
    const before = samples[index - 1]?.checkpoints ?? [];
    (samples[index]?.checkpoints ?? []).forEach((checkpoint, partition) => {
      checkpointBackward += checkpoint < (before[partition] ?? 0) ? 1 : 0;
    });
  }
  const seen = new Set(handled.map(({ position }) => position));
  const notHandled = expected.filter((position) => !seen.has(position)).length;

  let overlappingAccepts = 0;
  const byPartition = new Map<number, ChurnHandled[]>();
  for (const event of handled) {
    const events = byPartition.get(event.partition) ?? [];
    byPartition.set(event.partition, events);
    events.push(event);
  }
  for (const events of byPartition.values()) {
    const acked = [...events].sort((a, b) => a.at - b.at);
    const bySent = [...events].sort((a, b) => a.sentAt - b.sentAt);
    let highest = -1n;
    let next = 0;
    for (const event of bySent) {
      // The highest token accepted before this write was sent.
      while (next < acked.length && (acked[next]?.at ?? Infinity) < event.sentAt) {
        highest = (acked[next]?.token ?? -1n) > highest ? (acked[next]?.token ?? -1n) : highest;
        next += 1;
      }
      overlappingAccepts += event.token < highest ? 1 : 0;
    }
  }

  let unownedTooLong = 0;
  let longestUnownedMs = 0;
  const partitions = samples[0]?.leased.length ?? 0;
  for (let partition = 0; partition < partitions; partition += 1) {
    let since: number | undefined;
    for (const sample of samples) {
      if (sample.leased[partition] === true) {
        if (since !== undefined) {
          const unowned = sample.at - since;
          longestUnownedMs = Math.max(longestUnownedMs, unowned);
          unownedTooLong += unowned > unownedLimitMs ? 1 : 0;
        }
        since = undefined;
      } else {
        since ??= sample.at;
      }
    }
  }
  return { checkpointBackward, notHandled, overlappingAccepts, unownedTooLong, longestUnownedMs };
}
