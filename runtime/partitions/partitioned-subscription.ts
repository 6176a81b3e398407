import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { errorReporter, raceWithTimeout, timedOut, type ErrorHandler } from '../background/index.js';
import type { Checkpoint } from '../checkpoint.js';
import type { CheckpointStorage } from '../checkpoint-storage.js';
import { describeValue, quoteText } from '../describe-value.js';
import type { CompetingConsumerStrategy } from '../leases/competing-consumer-strategy.js';
import { assertNonEmptyId } from '../subscription-id.js';
import {
  DurableSubscription,
  type CheckpointPolicy,
  type EventSource,
  type HandlerContext,
  type PositionedEvent,
} from '../subscription/index.js';
import { PartitionTelemetry, type TelemetryOptions } from '../telemetry/index.js';
import type { LiveMember, Member, Membership } from './membership.js';
import { assignPartitions } from './partition-assignment.js';
import { assertPartitionCount, partitionOf } from './partition-hash.js';
import { quietMarker, SharedLogReader } from './shared-log-reader.js';

/** A partition's events after `from` (from the beginning when `undefined`), for a log split into partitions already. */
export type PartitionSource<E> = (
  partition: number,
  from: Checkpoint | undefined,
  signal: AbortSignal,
) => AsyncIterable<PositionedEvent<E>>;

/** `DurableSubscription`'s handler context, and the partition the event belongs to. */
export interface PartitionHandlerContext extends HandlerContext {
  readonly partition: number;
}

/** Handles one event of one partition; at-least-once, as every handler of this library. */
export type PartitionHandler<E> = (
  event: E,
  position: Checkpoint,
  context: PartitionHandlerContext,
) => void | Promise<void>;

/** Options of {@link PartitionedSubscription}: `source` or `partitionSource`, exactly one. */
export interface PartitionedSubscriptionOptions<E> extends TelemetryOptions {
  /** The subscription's name; partition `p` is stored under the subscription id `<name>/<p>`. */
  readonly name: string;
  /** A power of two from 1 to 4096, the same on every node for good; 64 by default. */
  readonly partitions?: number;
  /** The key of an event (a stream id, say); its partition is `partitionOf(key, partitions)` (Kafka's murmur2). */
  readonly partitionKey: (event: E) => string;
  /** One global, ordered log: each node reads it once and hands each event to its partition. */
  readonly source?: EventSource<E> | undefined;
  /** A log split into partitions already: each partition is read on its own. */
  readonly partitionSource?: PartitionSource<E> | undefined;
  /** Orders two positions of `source`: negative when `a` comes first. Decimal integers by value by default. */
  readonly comparePositions?: (a: Checkpoint, b: Checkpoint) => number;
  readonly handler: PartitionHandler<E>;
  /** Any checkpoint storage that evaluates write conditions. */
  readonly storage: CheckpointStorage;
  /** The lease strategy: one lease, and one token, per partition. */
  readonly strategy: CompetingConsumerStrategy;
  readonly membership: Membership;
  /** This node's id, unique among live nodes; host, pid and a random suffix by default. */
  readonly nodeId?: string;
  readonly checkpointEvery?: CheckpointPolicy;
  /**
   * How long a partition leaving this node lets its handler in flight finish before aborting it; below the lease
   * time. Half the lease time, at most 10 s, by default.
   */
  readonly drainTimeoutMs?: number;
  /** Told about every failure, with the subscription id (`<name>/<p>`, or the name); a console warning by default. */
  readonly onError?: (error: unknown, subscriptionId: string) => void;
}

/** One partition this node holds the lease of, as {@link PartitionedSubscription.status} shows it. */
export interface OwnedPartitionStatus {
  readonly partition: number;
  readonly fencingToken: bigint;
  /** The position last handled here (stored as `checkpointEvery` says), or where this node started. */
  readonly checkpoint: Checkpoint | undefined;
  /** Events read and not yet handled (global source), or the source's own `lag` of the last event. */
  readonly lag: number | undefined;
  /** When this node was granted the lease. */
  readonly since: Date;
}

/** What {@link PartitionedSubscription.status} answers. */
export interface PartitionedSubscriptionStatus {
  readonly nodeId: string;
  /** The live members at the last heartbeat. */
  readonly members: readonly LiveMember[];
  readonly partitions: readonly OwnedPartitionStatus[];
  /** Events this node read from its source(s), re-reads included: divided by the events in the log, reads per event. */
  readonly eventsRead: number;
}

/** One partition on this node. */
interface Partition {
  readonly partition: number;
  readonly id: string;
  /** Whether this node wants it: subscribed and not paused. */
  active: boolean;
  subscribed: boolean;
  /** Aborts to stop fetching: the run ends after the handler in flight. */
  drain: AbortController;
  /** Resolves when the current run's source is closed. */
  runClosed: Promise<void>;
  closeRun: () => void;
  /** Revoke or take under way; the next one waits for it. */
  transition: Promise<void>;
  checkpoint: Checkpoint | undefined;
  lag: number | undefined;
  since: Date;
  /** Counted in `partitions.owned`: granted here, and not ended since. */
  owning: boolean;
}

/**
 * One subscription split into partitions, each with its own lease, fencing token and checkpoint under `<name>/<p>`,
 * spread over the live members of a {@link Membership} by sticky bounded-load rendezvous (ADR 1201). A node takes only
 * the partitions targeted to it that no other live member reports holding; it gives up those targeted elsewhere once
 * the membership has been still for a settle window: stop fetching, drain, last fenced checkpoint, release. Leases,
 * fences and delivery are `DurableSubscription`'s (one per node, one subscribed id per partition); safety never
 * depends on nodes agreeing.
 */
export class PartitionedSubscription<E> {
  readonly nodeId: string;
  readonly #name: string;
  readonly #partitions: number;
  readonly #options: PartitionedSubscriptionOptions<E>;
  readonly #durable: DurableSubscription;
  readonly #reader: SharedLogReader<E> | undefined;
  readonly #drainTimeoutMs: number;
  readonly #heartbeatMs: number;
  readonly #settleMs: number;
  readonly #report: ErrorHandler<[subscriptionId: string]>;
  readonly #telemetry: PartitionTelemetry | undefined;
  readonly #parts = new Map<number, Partition>();
  readonly #contexts = new WeakMap<HandlerContext, PartitionHandlerContext>();
  readonly #stopListening: (() => void)[] = [];
  #member: Member | undefined;
  #members: readonly LiveMember[] = [];
  #membersKey = '';
  #changedAt = 0;
  #target = '';
  /** Per partition, when the last heartbeat first saw no member owning it. */
  readonly #unownedSince = new Map<number, number>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #ticking: Promise<void> = Promise.resolve();
  #state: 'new' | 'started' | 'stopped' = 'new';
  /** Events read from a `partitionSource` (a global `source` counts its own). */
  #partitionReads = 0;

  /**
   * @throws TypeError or RangeError for options that could never work: a bad name, partition count, node id, source
   *   (both or neither), handler, or a drain timeout not below the lease time; StorageCannotBeFencedError for a
   *   storage that cannot evaluate write conditions.
   */
  constructor(options: PartitionedSubscriptionOptions<E>) {
    assertNonEmptyId(options.name, 'name');
    const partitions = options.partitions ?? 64;
    assertPartitionCount(partitions);
    if ((options.source === undefined) === (options.partitionSource === undefined)) {
      throw new TypeError(
        `PartitionedSubscription ${quoteText(options.name)} needs exactly one of source (one global, ordered log) and ` +
          'partitionSource (a log split into partitions already).',
      );
    }
    for (const [what, value] of [
      ['handler', options.handler],
      ['partitionKey', options.partitionKey],
    ] as const) {
      if (typeof value !== 'function') {
        throw new TypeError(`PartitionedSubscription ${what} must be a function, got ${describeValue(value)}.`);
      }
    }
    const leaseTimeMs = options.strategy.leaseTimeMs;
    this.#drainTimeoutMs = options.drainTimeoutMs ?? Math.min(10_000, Math.floor((leaseTimeMs ?? 20_000) / 2));
    if (
      !Number.isSafeInteger(this.#drainTimeoutMs) ||
      this.#drainTimeoutMs < 0 ||
      (leaseTimeMs !== undefined && this.#drainTimeoutMs >= leaseTimeMs)
    ) {
      throw new RangeError(
        `drainTimeoutMs must be a whole number of milliseconds below the strategy's lease time (${leaseTimeMs ?? 'none'} ms), ` +
          `got ${describeValue(options.drainTimeoutMs)}: a drain that outlasts the lease hands the partition over by ` +
          'expiry instead. Lower drainTimeoutMs or raise leaseTimeMs.',
      );
    }
    this.#heartbeatMs = Math.max(1, Math.floor(options.membership.memberTimeMs / 3));
    if (leaseTimeMs !== undefined && this.#heartbeatMs >= leaseTimeMs / 2) {
      throw new RangeError(
        `The membership heartbeats every ${this.#heartbeatMs} ms (a third of memberTimeMs ${options.membership.memberTimeMs}), ` +
          `which is not below half the lease time (${leaseTimeMs} ms): a node would lose its leases before it saw the ` +
          'membership change. Lower memberTimeMs or raise leaseTimeMs.',
      );
    }
    // Partitions leave a live node only once the members have been still for half a member time, so a rolling deploy
    // moves each partition back once, not at every join; a partition no live member holds is taken at once.
    this.#settleMs = Math.floor(options.membership.memberTimeMs / 2);
    this.#name = options.name;
    this.#partitions = partitions;
    this.#options = options;
    this.#report = errorReporter(options.onError, (id) => `partitioned subscription ${quoteText(id)}`);
    this.nodeId = options.nodeId ?? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
    this.#durable = new DurableSubscription({
      storage: options.storage,
      strategy: options.strategy,
      // A node takes only partitions no other live member reports holding, which is what the grace would wait for.
      takeoverGraceMs: 0,
      subscriberId: this.nodeId,
      ...(options.checkpointEvery === undefined ? {} : { checkpointEvery: options.checkpointEvery }),
      ...(options.onError === undefined ? {} : { onError: options.onError }),
      ...pickTelemetry(options),
    });
    const compare = options.comparePositions ?? compareDecimalPositions;
    const { source } = options;
    this.#reader =
      source === undefined
        ? undefined
        : new SharedLogReader({
            source,
            partitionOf: (event) => partitionOf(options.partitionKey(event), partitions),
            comparePositions: compare,
            retryDelayMs: 1_000,
            onError: (error) => {
              this.#report(error, this.#name);
            },
          });
    this.#telemetry = PartitionTelemetry.resolve(options, (error) => {
      this.#report(error, this.#name);
    });
    this.#stopListening.push(
      options.strategy.onGranted((id, subscriberId) => {
        this.#onLease(id, subscriberId, true);
      }),
      options.strategy.onProhibited((id, subscriberId) => {
        this.#onLease(id, subscriberId, false);
      }),
    );
  }

  /**
   * Joins the membership and starts the assignment loop; resolves once joined.
   * @throws Error when the membership refuses the join: another partition count is recorded for the name, or this
   *   node id is live already (the message names both values and the fix).
   */
  async start(): Promise<void> {
    if (this.#state !== 'new') {
      throw new Error(`PartitionedSubscription ${quoteText(this.#name)} was started already; create a new one.`);
    }
    this.#state = 'started';
    try {
      this.#member = await this.#options.membership.join(this.#name, this.nodeId, this.#partitions);
    } catch (error) {
      this.#state = 'stopped';
      this.#stopListening.forEach((stop) => {
        stop();
      });
      throw error;
    }
    this.#changedAt = performance.now();
    this.#schedule(0);
  }

  /**
   * Hands every partition over: stops fetching, drains each (up to `drainTimeoutMs`), writes each last checkpoint with
   * its token, releases each lease, then leaves the membership. The strategy is left running: its owner shuts it down.
   */
  async shutdown(): Promise<void> {
    if (this.#state === 'stopped') {
      return;
    }
    this.#state = 'stopped';
    clearTimeout(this.#timer);
    await this.#ticking;
    await Promise.all([...this.#parts.values()].map((part) => this.#revoke(part)));
    await this.#durable.shutdown();
    this.#stopListening.forEach((stop) => {
      stop();
    });
    await this.#member?.leave().catch((error: unknown) => {
      this.#report(error, this.#name);
    });
  }

  /** This node's id, the members it sees, and the partitions whose leases it holds. */
  status(): PartitionedSubscriptionStatus {
    const partitions: OwnedPartitionStatus[] = [];
    for (const part of this.#parts.values()) {
      const fencingToken = this.#options.strategy.fencingToken(part.id);
      if (fencingToken !== undefined) {
        const { partition, checkpoint, since } = part;
        const lag = this.#reader === undefined ? part.lag : this.#reader.queued(partition);
        partitions.push({ partition, fencingToken, checkpoint, lag, since });
      }
    }
    const eventsRead = this.#reader?.eventsRead ?? this.#partitionReads;
    return { nodeId: this.nodeId, members: this.#members, partitions, eventsRead };
  }

  #schedule(delayMs: number): void {
    this.#timer = setTimeout(() => {
      this.#ticking = this.#tick().finally(() => {
        if (this.#state === 'started') {
          this.#schedule(this.#heartbeatMs);
        }
      });
    }, delayMs);
  }

  /** One heartbeat, and the assignment it leads to once the membership has settled. */
  async #tick(): Promise<void> {
    // By hasLock, not the token: a lease past its three-quarter mark unrenewed is no longer claimed, so the others try.
    const owned = [...this.#parts.values()]
      .filter((part) => this.#options.strategy.hasLock(part.id, this.nodeId))
      .map((part) => part.partition);
    let member = this.#member;
    try {
      if (member === undefined) {
        member = this.#member = await this.#options.membership.join(this.#name, this.nodeId, this.#partitions);
      }
      const view = await member.heartbeat(owned);
      if (!view.renewed) {
        // Lapsed (this node was taken for dead): join again; the leases still arbitrate meanwhile.
        this.#member = undefined;
        return;
      }
      this.#observe(view.members);
    } catch (error) {
      this.#report(error, this.#name);
      return;
    }
    if (this.#state !== 'started') {
      return;
    }
    const settled = performance.now() - this.#changedAt >= this.#settleMs;
    const target = assignPartitions(this.#partitions, this.#members);
    const key = target.join('\n');
    if (key !== this.#target) {
      this.#target = key;
      this.#telemetry?.rebalanced();
    }
    const claimed = new Set(this.#members.flatMap((member) => (member.nodeId === this.nodeId ? [] : member.owned)));
    for (let partition = 0; partition < this.#partitions; partition += 1) {
      const part = this.#parts.get(partition);
      if (target[partition] !== this.nodeId) {
        if (part?.active === true && settled) {
          void this.#revoke(part);
        }
      } else if (!claimed.has(partition)) {
        this.#take(partition);
      }
    }
  }

  /** Keeps the members, when they last changed, and since when each partition has had no owner. */
  #observe(members: readonly LiveMember[]): void {
    const now = performance.now();
    this.#members = members;
    const key = members.map((member) => member.nodeId).join('\n');
    if (key !== this.#membersKey) {
      this.#membersKey = key;
      this.#changedAt = now;
    }
    const owned = new Set(members.flatMap((member) => member.owned));
    for (let partition = 0; partition < this.#partitions; partition += 1) {
      if (owned.has(partition)) {
        this.#unownedSince.delete(partition);
      } else if (!this.#unownedSince.has(partition)) {
        this.#unownedSince.set(partition, now);
      }
    }
  }

  #take(partition: number): void {
    const existing = this.#parts.get(partition);
    if (existing?.active === true) {
      return;
    }
    const part = existing ?? this.#newPartition(partition);
    part.active = true;
    void this.#transition(part, async () => {
      if (!part.active || this.#state !== 'started') {
        return;
      }
      part.drain = new AbortController();
      if (part.subscribed) {
        await this.#durable.resume(part.id);
      } else {
        part.subscribed = true;
        this.#durable.subscribe(part.id, this.#sourceOf(part), (event, position, context) =>
          this.#handle(part, event, position, context),
        );
      }
    });
  }

  /** Stop fetching, let the handler in flight finish (up to the drain timeout), then pause: last write, release. */
  #revoke(part: Partition): Promise<void> {
    part.active = false;
    return this.#transition(part, async () => {
      if (part.active || !part.subscribed || this.#durable.isPaused(part.id)) {
        return;
      }
      const started = performance.now();
      const held = this.#options.strategy.fencingToken(part.id) !== undefined;
      part.drain.abort();
      const drained =
        !this.#durable.isRunning(part.id) || (await raceWithTimeout(part.runClosed, this.#drainTimeoutMs)) !== timedOut;
      // A handler still running past the drain timeout is aborted, and the lease given up under it once the writes
      // already sent are answered: its own late writes are refused once the next owner fences.
      await this.#durable.pause(part.id, drained ? {} : { giveUpAfterMs: 0 });
      if (held) {
        this.#telemetry?.handedOver((performance.now() - started) / 1000);
      }
    });
  }

  /** Runs `step` after the partition's earlier steps; a failure is reported and does not block the next. */
  #transition(part: Partition, step: () => Promise<void>): Promise<void> {
    part.transition = part.transition.then(step).catch((error: unknown) => {
      this.#report(error, part.id);
    });
    return part.transition;
  }

  #newPartition(partition: number): Partition {
    const part: Partition = {
      partition,
      id: `${this.#name}/${partition}`,
      active: false,
      subscribed: false,
      drain: new AbortController(),
      runClosed: Promise.resolve(),
      closeRun: () => undefined,
      transition: Promise.resolve(),
      checkpoint: undefined,
      lag: undefined,
      since: new Date(),
      owning: false,
    };
    this.#parts.set(partition, part);
    return part;
  }

  /** The source of one partition's runs: its share of the global log, or its own; ends when the partition drains. */
  #sourceOf(part: Partition): EventSource<E> {
    return (from, signal) => {
      part.checkpoint = from;
      let closeRun = (): void => undefined;
      part.runClosed = new Promise((resolve) => (closeRun = resolve));
      part.closeRun = closeRun;
      const both = AbortSignal.any([signal, part.drain.signal]);
      const events =
        this.#reader?.events(part.partition, from, both) ??
        (this.#options.partitionSource as PartitionSource<E>)(part.partition, from, both);
      return this.#counted(part, events, both);
    };
  }

  async *#counted(
    part: Partition,
    events: AsyncIterable<PositionedEvent<E>>,
    signal: AbortSignal,
  ): AsyncGenerator<PositionedEvent<E>> {
    const iterator = events[Symbol.asyncIterator]();
    const stopped = new Promise<undefined>((resolve) => {
      signal.addEventListener(
        'abort',
        () => {
          resolve(undefined);
        },
        { once: true },
      );
    });
    try {
      while (!signal.aborted) {
        const next = await Promise.race([iterator.next(), stopped]);
        if (next === undefined || next.done === true) {
          return;
        }
        if (this.#reader === undefined) {
          this.#partitionReads += 1;
          part.lag = next.value.lag;
        }
        yield next.value;
      }
    } finally {
      part.closeRun();
      iterator.return?.().catch(() => undefined);
    }
  }

  async #handle(part: Partition, event: E, position: Checkpoint, context: HandlerContext): Promise<void> {
    if ((event as unknown) !== quietMarker) {
      let withPartition = this.#contexts.get(context);
      if (withPartition === undefined) {
        withPartition = Object.freeze({ ...context, partition: part.partition });
        this.#contexts.set(context, withPartition);
      }
      await this.#options.handler(event, position, withPartition);
    }
    part.checkpoint = position;
  }

  #onLease(id: string, subscriberId: string, granted: boolean): void {
    const partition = subscriberId === this.nodeId ? this.#partitionOfId(id) : undefined;
    const part = partition === undefined ? undefined : this.#parts.get(partition);
    if (part === undefined || partition === undefined) {
      return;
    }
    const owning = this.#options.strategy.fencingToken(id) !== undefined;
    if (granted && owning && !part.owning) {
      part.since = new Date();
      const unowned = this.#unownedSince.get(partition);
      this.#unownedSince.delete(partition);
      this.#telemetry?.granted(unowned === undefined ? undefined : (performance.now() - unowned) / 1000);
    } else if (!owning && part.owning) {
      this.#telemetry?.ended();
    }
    part.owning = owning;
  }

  #partitionOfId(id: string): number | undefined {
    const prefix = `${this.#name}/`;
    const partition = id.startsWith(prefix) ? Number(id.slice(prefix.length)) : Number.NaN;
    return Number.isInteger(partition) ? partition : undefined;
  }
}

/**
 * The default `comparePositions`: decimal integers (a global sequence number) by value.
 * @throws TypeError for any other position, naming it and the option to give instead.
 */
export function compareDecimalPositions(a: Checkpoint, b: Checkpoint): number {
  for (const position of [a, b]) {
    if (!/^\d+$/u.test(position)) {
      throw new TypeError(
        `Position ${quoteText(position)} is not a decimal integer, which the default comparePositions orders by value. ` +
          'Give PartitionedSubscription a comparePositions that orders the positions of your source.',
      );
    }
  }
  const [x, y] = [BigInt(a), BigInt(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}

function pickTelemetry(options: TelemetryOptions): TelemetryOptions {
  const { meterProvider, tracerProvider, recordSubscriptionIds } = options;
  return {
    ...(meterProvider === undefined ? {} : { meterProvider }),
    ...(tracerProvider === undefined ? {} : { tracerProvider }),
    ...(recordSubscriptionIds === undefined ? {} : { recordSubscriptionIds }),
  };
}
