import type { Checkpoint } from '../checkpoint.js';
import type { EventSource, PositionedEvent } from '../subscription/index.js';

/** Stands for "nothing of this partition up to here": a partition's run writes its position and calls no handler. */
export const quietMarker: unique symbol = Symbol('checkpoint-fencing.quietMarker');

/** How often, at most, a partition with no events of its own is moved forward to the log's position. */
const quietAdvanceMs = 1_000;

/**
 * How long a (re)start waits for more partitions to start: the partitions granted together start within a few round
 * trips of each other, and one read from the lowest of them beats one read each.
 */
const gatherMs = 50;

/** One partition's share of the log, read by one run of that partition. */
interface Feed {
  readonly partition: number;
  readonly queue: PositionedEvent<unknown>[];
  /** The position of the last event queued (or the run's start): later reads at or before it are skipped. */
  last: Checkpoint | undefined;
  wake: (() => void) | undefined;
}

/** What a {@link SharedLogReader} reads and how it hands events out. */
export interface SharedLogReaderOptions<E> {
  readonly source: EventSource<E>;
  readonly partitionOf: (event: E) => number;
  /** Negative when `a` comes before `b` in the log. */
  readonly comparePositions: (a: Checkpoint, b: Checkpoint) => number;
  readonly retryDelayMs: number;
  readonly onError: (error: unknown) => void;
}

/**
 * Reads one global, ordered log once for all the partitions this node runs, from the lowest position among them, and
 * queues each event for its partition. A partition that starts behind the reader makes it read again from there; the
 * others skip what they already have. Partitions without events of their own are moved forward about once a second,
 * with {@link quietMarker}, so that a quiet partition that moves does not replay from far back.
 */
export class SharedLogReader<E> {
  /** Events read from the source, re-reads included: divided by the events in the log, the reads per event. */
  eventsRead = 0;
  readonly #options: SharedLogReaderOptions<E>;
  readonly #feeds = new Set<Feed>();
  #reading: AbortController | undefined;
  #restart: ReturnType<typeof setTimeout> | undefined;
  /** The position of the last event read; where a restart reads on from. */
  #cursor: Checkpoint | undefined;
  #advancedAt = 0;

  constructor(options: SharedLogReaderOptions<E>) {
    this.#options = options;
  }

  /** Events queued for `partition` and not yet taken by its run. */
  queued(partition: number): number {
    let count = 0;
    for (const feed of this.#feeds) {
      count += feed.partition === partition ? feed.queue.length : 0;
    }
    return count;
  }

  /** The events of `partition` after `from`, for one run: ends when `signal` aborts. */
  async *events(
    partition: number,
    from: Checkpoint | undefined,
    signal: AbortSignal,
  ): AsyncGenerator<PositionedEvent<E>> {
    const feed: Feed = { partition, queue: [], last: from, wake: undefined };
    this.#feeds.add(feed);
    this.#readFrom(from);
    const onAbort = (): void => feed.wake?.();
    signal.addEventListener('abort', onAbort);
    try {
      while (!signal.aborted) {
        const next = feed.queue.shift();
        if (next === undefined) {
          await new Promise<void>((resolve) => (feed.wake = resolve));
          feed.wake = undefined;
        } else {
          yield next as PositionedEvent<E>;
        }
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.#feeds.delete(feed);
      if (this.#feeds.size === 0) {
        this.#reading?.abort();
        this.#reading = undefined;
      }
    }
  }

  /** Starts reading, or reads again from `from` when a new run starts behind the reader; after {@link gatherMs}. */
  #readFrom(from: Checkpoint | undefined): void {
    if (this.#restart !== undefined || (this.#reading !== undefined && !this.#before(from, this.#cursor))) {
      return;
    }
    this.#restart = setTimeout(() => {
      this.#restart = undefined;
      this.#reading?.abort();
      if (this.#feeds.size === 0) {
        return;
      }
      const [first, ...rest] = [...this.#feeds].map((feed) => feed.last);
      const lowest = rest.reduce((low, last) => (this.#before(last, low) ? last : low), first);
      const reading = new AbortController();
      this.#reading = reading;
      this.#cursor = lowest;
      void this.#read(reading.signal);
    }, gatherMs);
  }

  async #read(signal: AbortSignal): Promise<void> {
    const { source, retryDelayMs, onError } = this.#options;
    while (!signal.aborted) {
      try {
        for await (const item of source(this.#cursor, signal)) {
          if (this.#reading?.signal !== signal) {
            return;
          }
          this.#dispatch(item);
        }
        this.#advanceQuiet(undefined);
      } catch (error) {
        if (this.#reading?.signal !== signal) {
          return;
        }
        onError(error);
      }
      await new Promise((resolve) => setTimeout(resolve, retryDelayMs));
    }
  }

  #dispatch(item: PositionedEvent<E>): void {
    this.eventsRead += 1;
    this.#cursor = item.position;
    const partition = this.#options.partitionOf(item.event);
    for (const feed of this.#feeds) {
      if (feed.partition === partition && this.#before(feed.last, item.position)) {
        this.#queue(feed, item);
      }
    }
    if (performance.now() - this.#advancedAt >= quietAdvanceMs) {
      this.#advanceQuiet(partition);
    }
  }

  /** Moves every idle partition but `except` to the reader's position. */
  #advanceQuiet(except: number | undefined): void {
    this.#advancedAt = performance.now();
    const position = this.#cursor;
    for (const feed of this.#feeds) {
      if (
        feed.partition !== except &&
        feed.queue.length === 0 &&
        position !== undefined &&
        this.#before(feed.last, position)
      ) {
        this.#queue(feed, { position, event: quietMarker });
      }
    }
  }

  #queue(feed: Feed, item: PositionedEvent<unknown>): void {
    feed.queue.push(item);
    feed.last = item.position;
    feed.wake?.();
  }

  /** Whether `a` comes before `b`; the beginning (`undefined`) comes before every position. */
  #before(a: Checkpoint | undefined, b: Checkpoint | undefined): boolean {
    return b !== undefined && (a === undefined || this.#options.comparePositions(a, b) < 0);
  }
}
