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
interface KeptLease {
  readonly token: FencingToken;
  /** `hasLock` answers true until this reading of the node's clock. */
  validUntil: number;
  /** When the request that last set the lease in the store was sent. */
  confirmedAt: number;
  /** Whether the listeners were told that `validUntil` passed without a renewal. */
  lapsed: boolean;
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
  lease: KeptLease | undefined;
  /** No acquire before this reading of the node's clock (after a release, others get their chance first). */
  notBefore: number;
  /** Store calls of one consumer run one after another, so a release never overtakes the acquire before it. */
  queue: Promise<void>;
}

/** The lease time of a strategy built without `leaseTimeMs`. */
export const defaultLeaseTimeMs = 20_000;

/**
 * A {@link CompetingConsumerStrategy} over any {@link LeaseStore}: on one timer, every third of the lease time, it
 * renews every lease it holds in one `refreshAll` (one round trip however many) and tries to acquire for registered
 * consumers without one; it answers `hasLock` from memory by the three-quarter rule, and tells the `onProhibited`
 * listeners when a lease passes that mark unrenewed, so that they stop before the store can expire it.
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
  #timer: LeaseTimer | undefined;
  #nextRenewalAt = 0;
  #renewing = false;

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
      notBefore: 0,
      queue: Promise.resolve(),
    };
    const bySubscriber = this.#consumers.get(subscriptionId) ?? new Map<string, Consumer>();
    bySubscriber.set(subscriberId, consumer);
    this.#consumers.set(subscriptionId, bySubscriber);
    if (this.#timer === undefined) {
      this.#nextRenewalAt = this.#clock.now() + this.#intervalMs;
    }
    await this.#enqueue(consumer, () => this.#tryAcquire(consumer));
    this.#schedule();
    return this.hasLock(subscriptionId, subscriberId);
  }

  async unregister(subscriptionId: string, subscriberId: string): Promise<void> {
    assertLeaseIds(subscriptionId, subscriberId);
    const consumer = this.#consumer(subscriptionId, subscriberId);
    if (consumer === undefined) {
      return;
    }
    consumer.registered = false;
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
    consumer.notBefore = this.#clock.now() + this.leaseTimeMs;
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
    const consumers = this.#allConsumers();
    this.#consumers.clear();
    if (this.#timer !== undefined) {
      this.#clock.clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    for (const consumer of consumers) {
      consumer.registered = false;
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

  get #intervalMs(): number {
    return Math.max(1, Math.floor(this.leaseTimeMs / 3));
  }

  #allConsumers(): Consumer[] {
    return [...this.#consumers.values()].flatMap((bySubscriber) => [...bySubscriber.values()]);
  }

  /** The one timer: at the next renewal, or sooner when a held lease reaches its three-quarter mark unrenewed. */
  #schedule(): void {
    if (this.#timer !== undefined) {
      this.#clock.clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    const consumers = this.#allConsumers();
    if (this.#shutDown || consumers.length === 0) {
      return;
    }
    let at = this.#nextRenewalAt;
    for (const { lease } of consumers) {
      at = lease === undefined || lease.lapsed ? at : Math.min(at, lease.validUntil);
    }
    this.#timer = this.#clock.setTimeout(
      () => {
        this.#timer = undefined;
        this.#onTimer();
      },
      Math.max(0, at - this.#clock.now()),
    );
  }

  #onTimer(): void {
    const now = this.#clock.now();
    const consumers = this.#allConsumers();
    for (const consumer of consumers) {
      const lease = consumer.lease;
      if (lease !== undefined && !lease.lapsed && now >= lease.validUntil) {
        // hasLock answers false from now on: the listeners stop delivering before the store can expire the lease.
        lease.lapsed = true;
        this.#emit(this.#prohibited, consumer);
      }
    }
    if (now >= this.#nextRenewalAt) {
      this.#nextRenewalAt = now + this.#intervalMs;
      const held = consumers.flatMap((consumer) =>
        consumer.lease === undefined ? [] : [{ consumer, lease: consumer.lease }],
      );
      if (held.length > 0 && !this.#renewing) {
        void this.#renew(held);
      }
      for (const consumer of consumers) {
        if (consumer.lease === undefined && now >= consumer.notBefore) {
          void this.#enqueue(consumer, () => this.#tryAcquire(consumer)).then(() => {
            this.#schedule();
          });
        }
      }
    }
    this.#schedule();
  }

  /** One `refreshAll` for every lease held; a lease the store no longer has ends, as lost. */
  async #renew(held: readonly { readonly consumer: Consumer; readonly lease: KeptLease }[]): Promise<void> {
    this.#renewing = true;
    const sentAt = this.#clock.now();
    try {
      const renewed = await this.#store.refreshAll(
        held.map(({ consumer, lease }) => ({
          subscriptionId: consumer.subscriptionId,
          owner: consumer.owner,
          token: lease.token,
        })),
        this.leaseTimeMs,
      );
      held.forEach(({ consumer, lease }, index) => {
        if (consumer.lease !== lease) {
          return;
        }
        if (renewed[index] === true) {
          lease.validUntil = sentAt + (this.leaseTimeMs * 3) / 4;
          lease.confirmedAt = sentAt;
          lease.lapsed = false;
        } else {
          this.#endLease(consumer, true);
        }
      });
    } catch (error) {
      const first = held[0]?.consumer;
      this.#report(error, first?.subscriptionId ?? '', first?.subscriberId ?? '');
      // Without an answer for a whole lease time, the store has expired the lease by its own clock.
      for (const { consumer, lease } of held) {
        if (consumer.lease === lease && this.#clock.now() - lease.confirmedAt >= this.leaseTimeMs) {
          this.#endLease(consumer, true);
        }
      }
    } finally {
      this.#renewing = false;
      this.#schedule();
    }
  }

  async #tryAcquire(consumer: Consumer): Promise<void> {
    if (!consumer.registered || this.#shutDown || consumer.lease !== undefined) {
      return;
    }
    try {
      await this.#acquire(consumer, this.#clock.now());
    } catch (error) {
      this.#report(error, consumer.subscriptionId, consumer.subscriberId);
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
    consumer.lease = { token, validUntil: sentAt + (this.leaseTimeMs * 3) / 4, confirmedAt: sentAt, lapsed: false };
    this.#telemetry?.granted(consumer.subscriptionId, consumer.subscriberId);
    this.#emit(this.#granted, consumer);
  }

  /** Forgets the consumer's lease and tells the listeners: `lost` when the store took it, not when it was given up. */
  #endLease(consumer: Consumer, lost: boolean): void {
    consumer.lease = undefined;
    this.#telemetry?.ended(consumer.subscriptionId, consumer.subscriberId, lost);
    this.#emit(this.#prohibited, consumer);
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
