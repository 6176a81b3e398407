import { describe, expect, it } from 'vitest';
import { compareDecimalPositions } from '../../../runtime/partitions/partitioned-subscription.js';
import { mostQueued, quietMarker, SharedLogReader } from '../../../runtime/partitions/shared-log-reader.js';
import { TestLog, until, type LogEvent } from '../../support/partitions/partitioned-scenario.js';

const partitionOf = (event: LogEvent): number => Number(event.stream.slice('stream-'.length)) % 4;

/** Takes what the reader hands `partition` after `from`, in order, into `got`, until `signal` aborts. */
async function take(
  reader: SharedLogReader<LogEvent>,
  partition: number,
  from: string | undefined,
  signal: AbortSignal,
  got: string[],
): Promise<void> {
  for await (const { position, event } of reader.events(partition, from, signal)) {
    got.push((event as unknown) === quietMarker ? `quiet@${position}` : position);
  }
}

function readerOf(log: TestLog): SharedLogReader<LogEvent> {
  return new SharedLogReader<LogEvent>({
    source: log.source,
    partitionOf,
    comparePositions: compareDecimalPositions,
    retryDelayMs: 20,
    onError: (error) => {
      throw error;
    },
    starting: () => false,
  });
}

describe('SharedLogReader', () => {
  it('queues at most mostQueued events for a partition that does not take them, and reads the rest again later', async () => {
    const log = new TestLog();
    log.append(4 * mostQueued + 4_000, 4);
    const reader = readerOf(log);
    const stop = new AbortController();
    const fast: string[] = [];
    const slow: string[] = [];
    const fastReading = take(reader, 0, undefined, stop.signal, fast);
    let pulled = 0;
    const slowReading = (async () => {
      for await (const { position, event } of reader.events(1, undefined, stop.signal)) {
        pulled += 1;
        if (pulled === 1) {
          // A slow handler: the reader reads on while this partition takes nothing.
          await until(() => fast.filter((item) => !item.startsWith('quiet')).length === mostQueued + 1_000);
          expect(reader.queued(1)).toBe(mostQueued);
        }
        slow.push((event as unknown) === quietMarker ? `quiet@${position}` : position);
      }
    })();
    await until(() => slow.filter((item) => !item.startsWith('quiet')).length === mostQueued + 1_000);
    stop.abort();
    await Promise.all([fastReading, slowReading]);
    const ofPartition = (partition: number): string[] =>
      log.events.filter((event) => partitionOf(event) === partition).map(({ n }) => String(n));
    expect(slow.filter((item) => !item.startsWith('quiet'))).toEqual(ofPartition(1));
    expect(fast.filter((item) => !item.startsWith('quiet'))).toEqual(ofPartition(0));
  });

  it('hands a partition that starts behind the reader every event after its position, in order, and no quiet mark past them', async () => {
    const log = new TestLog();
    log.append(2_000);
    const reader = readerOf(log);
    const stop = new AbortController();
    const early: string[] = [];
    const late: string[] = [];
    const reading = take(reader, 0, undefined, stop.signal, early);
    await until(() => reader.eventsRead === 2_000);
    const lateReading = take(reader, 1, '10', stop.signal, late);
    await until(() => late.filter((item) => !item.startsWith('quiet')).length === 497);
    await until(() => late.at(-1) === 'quiet@2000');
    stop.abort();
    await Promise.all([reading, lateReading]);
    const ofPartition = (partition: number, after: number): string[] =>
      log.events.filter((event) => partitionOf(event) === partition && event.n > after).map(({ n }) => String(n));
    expect(early.filter((item) => !item.startsWith('quiet'))).toEqual(ofPartition(0, 0));
    expect(late.filter((item) => !item.startsWith('quiet'))).toEqual(ofPartition(1, 10));
    // Read twice: once for the early partition, once from "10" for the late one, not once per partition event.
    expect(reader.eventsRead).toBe(2_000 + 1_990);
  });
});
