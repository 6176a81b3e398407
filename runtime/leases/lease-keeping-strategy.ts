import { randomUUID } from 'node:crypto';
import { errorReporter, ShutdownDeadline, type ErrorHandler } from '../background/index.js';
import { quoteText } from '../describe-value.js';
import type { FencingToken } from '../fencing-token.js';
import { assertWriteVersion } from '../storage-arguments.js';
import { assertLeaseIds, assertLeasedSubscriptionId } from '../subscription-id.js';
import { LeaseTelemetry, type TelemetryOptions } from '../telemetry/index.js';
import type { CompetingConsumerListener, CompetingConsumerStrategy } from './competing-consumer-strategy.js';
import { systemLeaseClock, type LeaseClock, type LeaseTimer } from './lease-clock.js';
import type { LeaseStore } from './lease-store.js';

/** Options every lease-keeping strategy takes. */
export interface LeaseKeepingStrategyOptions extends TelemetryOptions {
  /** How long a lease lasts in the store without a refresh; 20 000 ms by default. Refreshed every third of it. */
  readonly leaseTimeMs?: number;
  /** This node's clock and timers; the system's by default. Tests pass a manual or pausable one. */
  readonly clock?: LeaseClock;
  /**
   * Told about a store call that failed (the strategy keeps trying), and about the first error its OpenTelemetry
   * meter throws (the grant or loss went on); a warning on the console by default.
   */
  readonly onError?: (error: unknown, subscriptionId: string, subscriberId: string) => void;
}

/** A lease this node believes it holds. */
interface HeldLease {
  readonly token: FencingToken;
  /** `hasLock` answers true until this reading of the node's clock. */
  validUntil: number;
  /** When the request that last set the lease in the store was sent. */
  confirmedAt: number;
}

interface Consumer {
  readonly subscriptionId: string;
  readonly subscriberId: string;
  /**
   * Unique to this registration of this strategy instance: two processes given the same subscriber id never share a
   * lease, and a late reply to an earlier registration's acquire is never mistaken for this one's.
   */
  readonly owner: string;
  registered: boolean;
  lease: HeldLease | undefined;
  timer: LeaseTimer | undefined;
  /** Store calls of one consumer run one after another, so a release never overtakes the acquire before it. */
  queue: Promise<void>;
}

/** The lease time of a strategy built without `leaseTimeMs`. */
export const defaultLeaseTimeMs = 20_000;

/**
 * A {@link CompetingConsumerStrategy} over any {@link LeaseStore}: it acquires for registered consumers, refreshes
 * held leases every third of the lease time, and answers `hasLock` from memory by the three-quarter rule.
 */
export class LeaseKeepingStrategy implements CompetingConsumerStrategy {
  /** The lease time this strategy asks the store for, in milliseconds. */
  readonly leaseTimeMs: number;
  readonly #store: LeaseStore;
  readonly #clock: LeaseClock;
  readonly #report: ErrorHandler<[subscriptionId: string, subscriberId: string]>;
  readonly #instanceId = randomUUID();
  readonly #consumers = new Map<string, Map<string, Consumer>>();
  readonly #granted = new Set<CompetingConsumerListener>();
  readonly #prohibited = new Set<CompetingConsumerListener>();
  readonly #telemetry: LeaseTelemetry | undefined;
  #shutDown = false;
  #registrations = 0;

  /** @throws RangeError unless `leaseTimeMs` is a positive safe integer. */
  constructor(store: LeaseStore, options: LeaseKeepingStrategyOptions = {}) {
    const leaseTimeMs = options.leaseTimeMs ?? defaultLeaseTimeMs;
    if (!Number.isSafeInteger(leaseTimeMs) || leaseTimeMs < 3) {
      throw new RangeError(
        `leaseTimeMs must be a whole number of milliseconds, at least 3; got ${String(leaseTimeMs)}.`,
      );
    }
    this.leaseTimeMs = leaseTimeMs;
    this.#store = store;
    this.#clock = options.clock ?? systemLeaseClock;
    this.#report = errorReporter(
      options.onError,
      (subscriptionId, subscriberId) =>
        `lease call for subscription ${quoteText(subscriptionId)}, subscriber ${quoteText(subscriberId)} failed; ` +
        'the strategy keeps trying and hasLock answers false once the lease could have expired',
    );
    this.#telemetry = LeaseTelemetry.resolve(
      options,
      errorReporter(
        options.onError,
        (subscriptionId, subscriberId) =>
          `telemetry of the lease of subscription ${quoteText(subscriptionId)}, subscriber ${quoteText(subscriberId)}`,
      ),
    );
  }

  async register(subscriptionId: string, subscriberId: string): Promise<boolean> {
    assertLeaseIds(subscriptionId, subscriberId);
    if (this.#shutDown) {
      throw new Error(
        `Cannot register subscriber ${quoteText(subscriberId)} for subscription ${quoteText(subscriptionId)}: ` +
          'this lease strategy has been shut down. Create a new strategy instance.',
      );
    }
    const existing = this.#consumer(subscriptionId, subscriberId);
    if (existing !== undefined) {
      return this.hasLock(subscriptionId, subscriberId);
    }
    const consumer: Consumer = {
      subscriptionId,
      subscriberId,
      owner: `${subscriberId} ${this.#instanceId}/${++this.#registrations}`,
      registered: true,
      lease: undefined,
      timer: undefined,
      queue: Promise.resolve(),
    };
    const bySubscriber = this.#consumers.get(subscriptionId) ?? new Map<string, Consumer>();
    bySubscriber.set(subscriberId, consumer);
    this.#consumers.set(subscriptionId, bySubscriber);
    await this.#enqueue(consumer, () => this.#tick(consumer));
    this.#scheduleNextTick(consumer);
    return this.hasLock(subscriptionId, subscriberId);
  }

  async unregister(subscriptionId: string, subscriberId: string): Promise<void> {
    assertLeaseIds(subscriptionId, subscriberId);
    const consumer = this.#consumer(subscriptionId, subscriberId);
    if (consumer === undefined) {
      return;
    }
    consumer.registered = false;
    this.#cancelTimer(consumer);
    const bySubscriber = this.#consumers.get(subscriptionId);
    bySubscriber?.delete(subscriberId);
    if (bySubscriber?.size === 0) {
      this.#consumers.delete(subscriptionId);
    }
    await this.#giveUp(consumer);
  }

  async release(subscriptionId: string, subscriberId: string): Promise<void> {
    assertLeaseIds(subscriptionId, subscriberId);
    const consumer = this.#consumer(subscriptionId, subscriberId);
    if (consumer === undefined) {
      return;
    }
    // Other candidates try every third of the lease time; waiting a whole lease time gives them three chances
    // at the freed lease before this consumer tries again, so a release hands over even when timers run late.
    this.#scheduleNextTick(consumer, this.leaseTimeMs);
    await this.#giveUp(consumer);
  }

  hasLock(subscriptionId: string, subscriberId: string): boolean {
    const lease = this.#consumer(subscriptionId, subscriberId)?.lease;
    return lease !== undefined && this.#clock.now() < lease.validUntil;
  }

  fencingToken(subscriptionId: string): FencingToken | undefined {
    const bySubscriber = this.#consumers.get(subscriptionId);
    if (bySubscriber?.size !== 1) {
      return undefined;
    }
    const [only] = bySubscriber.values();
    return only?.lease?.token;
  }

  /**
   * Raises the store's token floor for `subscriptionId` so that the next token minted is greater than `version`, with
   * the store's one atomic step (`LeaseStore.raiseFencingTokenAbove`); leaves this instance's consumers as they are.
   */
  async raiseFencingTokenAbove(subscriptionId: string, version: bigint): Promise<void> {
    assertLeasedSubscriptionId(subscriptionId);
    assertWriteVersion(version);
    await this.#store.raiseFencingTokenAbove(subscriptionId, version);
  }

  onGranted(listener: CompetingConsumerListener): () => void {
    this.#granted.add(listener);
    return () => this.#granted.delete(listener);
  }

  onProhibited(listener: CompetingConsumerListener): () => void {
    this.#prohibited.add(listener);
    return () => this.#prohibited.delete(listener);
  }

  async shutdown(): Promise<void> {
    if (this.#shutDown) {
      return;
    }
    this.#shutDown = true;
    const consumers = [...this.#consumers.values()].flatMap((bySubscriber) => [...bySubscriber.values()]);
    this.#consumers.clear();
    for (const consumer of consumers) {
      consumer.registered = false;
      this.#cancelTimer(consumer);
    }
    await new ShutdownDeadline(this.#clock).settle(consumers.map((consumer) => this.#giveUp(consumer)));
  }

  /** Forgets the lease at once (so `hasLock` answers false), then makes one attempt to free it in the store. */
  async #giveUp(consumer: Consumer): Promise<void> {
    const lease = consumer.lease;
    if (lease === undefined) {
      return;
    }
    this.#endLease(consumer, false);
    await this.#enqueue(consumer, () =>
      this.#store.release(consumer.subscriptionId, consumer.owner, lease.token),
    ).catch((error: unknown) => {
      // The lease expires in the store on its own after the lease time; nothing else to do.
      this.#report(error, consumer.subscriptionId, consumer.subscriberId);
    });
  }

  async #tick(consumer: Consumer): Promise<void> {
    if (!consumer.registered || this.#shutDown) {
      return;
    }
    const lease = consumer.lease;
    const sentAt = this.#clock.now();
    try {
      if (lease === undefined) {
        await this.#acquire(consumer, sentAt);
      } else if (await this.#store.refresh(consumer.subscriptionId, consumer.owner, lease.token, this.leaseTimeMs)) {
        lease.validUntil = sentAt + (this.leaseTimeMs * 3) / 4;
        lease.confirmedAt = sentAt;
      } else if (consumer.lease === lease) {
        this.#endLease(consumer, true);
      }
    } catch (error) {
      this.#report(error, consumer.subscriptionId, consumer.subscriberId);
      // Without an answer for a whole lease time, the store has expired the lease by its own clock.
      if (
        lease !== undefined &&
        consumer.lease === lease &&
        this.#clock.now() - lease.confirmedAt >= this.leaseTimeMs
      ) {
        this.#endLease(consumer, true);
      }
    }
  }

  async #acquire(consumer: Consumer, sentAt: number): Promise<void> {
    const token = await this.#store.acquire(consumer.subscriptionId, consumer.owner, this.leaseTimeMs);
    if (token === undefined) {
      return;
    }
    if (!consumer.registered || this.#shutDown) {
      // Unregistered while the request was out: hand the lease straight back.
      await this.#store.release(consumer.subscriptionId, consumer.owner, token);
      return;
    }
    consumer.lease = { token, validUntil: sentAt + (this.leaseTimeMs * 3) / 4, confirmedAt: sentAt };
    this.#telemetry?.granted(consumer.subscriptionId, consumer.subscriberId);
    this.#emit(this.#granted, consumer);
  }

  /** Forgets the consumer's lease and tells the listeners: `lost` when the store took it, not when it was given up. */
  #endLease(consumer: Consumer, lost: boolean): void {
    consumer.lease = undefined;
    this.#telemetry?.ended(consumer.subscriptionId, consumer.subscriberId, lost);
    this.#emit(this.#prohibited, consumer);
  }

  #scheduleNextTick(consumer: Consumer, delayMs = Math.max(1, Math.floor(this.leaseTimeMs / 3))): void {
    this.#cancelTimer(consumer);
    if (!consumer.registered || this.#shutDown) {
      return;
    }
    consumer.timer = this.#clock.setTimeout(() => {
      consumer.timer = undefined;
      void this.#enqueue(consumer, () => this.#tick(consumer)).then(() => {
        if (consumer.timer === undefined) {
          this.#scheduleNextTick(consumer);
        }
      });
    }, delayMs);
  }

  #cancelTimer(consumer: Consumer): void {
    if (consumer.timer !== undefined) {
      this.#clock.clearTimeout(consumer.timer);
      consumer.timer = undefined;
    }
  }

  #enqueue<T>(consumer: Consumer, operation: () => Promise<T>): Promise<T> {
    const result = consumer.queue.then(operation);
    consumer.queue = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  #consumer(subscriptionId: string, subscriberId: string): Consumer | undefined {
    return this.#consumers.get(subscriptionId)?.get(subscriberId);
  }

  #emit(listeners: ReadonlySet<CompetingConsumerListener>, consumer: Consumer): void {
    for (const listener of listeners) {
      try {
        listener(consumer.subscriptionId, consumer.subscriberId);
      } catch (error) {
        this.#report(error, consumer.subscriptionId, consumer.subscriberId);
      }
    }
  }
}
