import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { errorReporter, raceWithTimeout, ShutdownDeadline, timedOut, type ErrorHandler } from '../background/index.js';
import type { Checkpoint } from '../checkpoint.js';
import {
  evaluatesWriteConditions,
  evaluatesWriteConditionsFor,
  storageName,
  type CheckpointStorage,
} from '../checkpoint-storage.js';
import { CheckpointWriteCondition } from '../checkpoint-write-condition.js';
import { quoteText } from '../describe-value.js';
import { CheckpointWriteConditionNotFulfilledError } from '../errors/checkpoint-write-condition-not-fulfilled-error.js';
import { StorageCannotBeFencedError } from '../errors/storage-cannot-be-fenced-error.js';
import { FencedCheckpointWriter, pinStartPosition } from '../fenced-checkpoint-writer.js';
import type { CompetingConsumerStrategy } from '../leases/competing-consumer-strategy.js';
import { assertCheckpoint } from '../storage-arguments.js';
import { assertLeasedSubscriptionId, assertSubscriberId } from '../subscription-id.js';
import { SubscriptionTelemetry, type TelemetryContext, type TelemetryOptions } from '../telemetry/index.js';
import {
  checkpointEveryEvent,
  resolveCheckpointPolicy,
  type CheckpointPolicy,
  type ResolvedCheckpointPolicy,
} from './checkpoint-policy.js';
import { DeliveryRun, type RunWriter } from './delivery-run.js';
import { DuplicateSubscriberError } from './duplicate-subscriber-error.js';
import { DuplicateSubscriptionIdError } from './duplicate-subscription-id-error.js';
import { fenceOnAcquire } from './fence-on-acquire.js';
import type { HandlerContext } from './handler-context.js';
import {
  initialSubscriptionState,
  nextSubscriptionState,
  type SubscriptionEvent,
  type SubscriptionRules,
  type SubscriptionState,
} from './subscription-state.js';
import { resolveWaitMs } from './subscription-timing.js';
import { UnknownSubscriptionError } from './unknown-subscription-error.js';

/** One event of a subscription and the position to checkpoint once it is handled. */
export interface PositionedEvent<E> {
  readonly position: Checkpoint;
  readonly event: E;
  /**
   * The OpenTelemetry context the event was sent in (extracted from its headers, say): the span of its handling is a
   * child of it. Without it, a child of the context active in the delivery loop.
   */
  readonly traceContext?: TelemetryContext;
  /** How far behind the source is after this event, in events (a Kafka consumer's lag, say): recorded as a gauge. */
  readonly lag?: number;
}

/**
 * Reads a subscription's events after `from` (from the beginning when `undefined`). `signal` aborts when delivery
 * stops (lease lost, pause, shutdown); a source that ends is asked again from the stored checkpoint later.
 */
export type EventSource<E> = (from: Checkpoint | undefined, signal: AbortSignal) => AsyncIterable<PositionedEvent<E>>;

/**
 * Handles one event; it may run more than once for the same event (delivery is at-least-once). `context` carries the
 * run's fencing token, its abort signal and `saveCheckpointNow()`; a handler that takes two parameters still fits.
 */
export type EventHandler<E> = (event: E, position: Checkpoint, context: HandlerContext) => void | Promise<void>;

/** Options of {@link DurableSubscription.subscribe}. */
export interface SubscribeOptions {
  /** Pinned with `saveStartPosition` (`ifAbsent()`) when nothing is stored, so every node starts from one position. */
  readonly startPosition?: Checkpoint;
  /** This subscription's checkpoint policy, in place of the `DurableSubscription`'s own `checkpointEvery`. */
  readonly checkpointEvery?: CheckpointPolicy;
}

/** Options of {@link DurableSubscription.pause}. */
export interface PauseOptions {
  /**
   * Give the lease up this long after the pause even while a handler is still running (its signal aborts at once; a
   * write it makes afterwards is refused once the next holder fences). Without it, the pause waits for the handler.
   */
  readonly giveUpAfterMs?: number;
}

/** Options of {@link DurableSubscription}. */
export interface DurableSubscriptionOptions extends TelemetryOptions {
  readonly storage: CheckpointStorage;
  /** Hands each subscription to one node at a time; without one, this instance delivers unfenced and alone. */
  readonly strategy?: CompetingConsumerStrategy;
  /** This node's id in the strategy; unique per node. Host, pid and a random suffix by default. */
  readonly subscriberId?: string;
  /** On each grant, first advance the stored fence to the new token (default true); see doc/leases.md. */
  readonly fenceOnAcquire?: boolean;
  /**
   * After a grant of any token but 0, wait this long before fencing and delivering, so that a holder whose lease
   * vanished under it (deleted by hand, lost in a failover) finds out at its next refresh and stops first; otherwise
   * both would deliver and the older one's last checkpoint could land after the newer one read its start. Two
   * thirds of the strategy's `leaseTimeMs` by default (two of its refresh intervals), 0 when it has none.
   */
  readonly takeoverGraceMs?: number;
  /** How often held-back events look at `hasLock` again between lease events; 50 ms by default. */
  readonly holdBackPollMs?: number;
  /**
   * Wait after a failed run (handler, source or storage error) or an ended source; 1 000 ms by default. With 0 a run is
   * retried on the next turn of the event loop, never sooner, so timers and I/O still run.
   */
  readonly retryDelayMs?: number;
  /**
   * When handled positions are written: after `events` of them or `ms` after the oldest one not yet written, whichever
   * comes first. Every event by default. `subscribe` can give a subscription its own. See doc/leases.md.
   */
  readonly checkpointEvery?: CheckpointPolicy;
  /**
   * Told about every failure, including a refused checkpoint write (`CheckpointWriteConditionNotFulfilledError`:
   * this node lost its lease, or the strategy's token counter was lost), and about the first error its OpenTelemetry
   * meter, tracer or span processor throws (the event was handled all the same). A warning on the console by default.
   */
  readonly onError?: (error: unknown, subscriptionId: string) => void;
}

interface Subscription {
  readonly id: string;
  readonly source: EventSource<unknown>;
  readonly handler: EventHandler<unknown>;
  readonly startPosition: Checkpoint | undefined;
  readonly policy: ResolvedCheckpointPolicy;
  readonly wakeup: Wakeup;
  /** Changed only through {@link DurableSubscription.#apply}, by {@link nextSubscriptionState}. */
  state: SubscriptionState;
  /** The delivering effect in flight, if any. */
  run: DeliveryRun | undefined;
  /** Whether a `strategy.register` is in flight: once it lands, the strategy has this subscription as a candidate. */
  registering: boolean;
  /** The unregister of a stopped subscription, once started: by shutdown, or by the supervisor for a late registration. */
  unregisteringStopped: Promise<void> | undefined;
  /** Callers of `pause` waiting until the strategy no longer has this subscription as a candidate. */
  pausers: (() => void)[];
  /** Whether the "lock but no token" misconfiguration was reported already; it is reported once. */
  reportedMissingToken: boolean;
  readonly releaseClaim: () => void;
  supervisor: Promise<void>;
}

/**
 * Delivers events to handlers and checkpoints the handled positions (each one, or as `checkpointEvery` says) through a
 * {@link FencedCheckpointWriter} stamped with the fencing token of the lease they were delivered under; handlers get
 * that token, an abort signal and `saveCheckpointNow()` in their context. Resumes from the stored checkpoint; holds
 * events back while `hasLock` is false; writes a pending position before it gives a lease up, never after; on a
 * refused write it gives the lease up (staying a candidate) after raising the strategy's token floor above the stored
 * version, so that the next grant fences again.
 */
export class DurableSubscription {
  /** The id this node competes under. */
  readonly subscriberId: string;
  readonly #storage: CheckpointStorage;
  readonly #strategy: CompetingConsumerStrategy | undefined;
  readonly #rules: SubscriptionRules;
  readonly #fenceOnAcquire: boolean;
  readonly #holdBackPollMs: number;
  readonly #retryDelayMs: number;
  readonly #policy: ResolvedCheckpointPolicy;
  readonly #report: ErrorHandler<[subscriptionId: string]>;
  readonly #telemetry: SubscriptionTelemetry | undefined;
  /** Writes `any()`: for a subscription without a strategy, which delivers alone. */
  readonly #unfencedWriter: RunWriter;
  readonly #subscriptions = new Map<string, Subscription>();
  readonly #stopListening: (() => void)[] = [];
  #stopped = false;
  /**
   * Set once shutdown has chosen the leases it gives up: a registration that lands later, or a run that ends later,
   * is unregistered by its own supervisor, so the strategy does not keep a lease that nobody delivers.
   */
  #leavingGivenUp = false;

  /**
   * @throws StorageCannotBeFencedError when a strategy is given and the storage cannot evaluate write conditions.
   * @throws TypeError for a `subscriberId` that is not a non-empty, well-formed string or that the strategy's
   *   `assertSubscriberId` refuses (NUL for PostgreSQL), or a `checkpointEvery` that is not an object with `events`,
   *   `ms` or both.
   * @throws RangeError for a `checkpointEvery` whose `events` or `ms` is out of range, or a `retryDelayMs`,
   *   `holdBackPollMs` or `takeoverGraceMs` that is not a number of milliseconds from 0 to 2 147 483 647.
   */
  constructor(options: DurableSubscriptionOptions) {
    if (options.subscriberId !== undefined) {
      assertSubscriberId(options.subscriberId);
    }
    this.subscriberId = options.subscriberId ?? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
    options.strategy?.assertSubscriberId?.(this.subscriberId);
    this.#storage = options.storage;
    this.#strategy = options.strategy;
    this.#rules = {
      leased: options.strategy !== undefined,
      takeoverGraceMs: resolveWaitMs(
        options.takeoverGraceMs,
        Math.floor(((options.strategy?.leaseTimeMs ?? 0) * 2) / 3),
        'takeoverGraceMs',
      ),
    };
    this.#fenceOnAcquire = options.fenceOnAcquire ?? true;
    this.#holdBackPollMs = resolveWaitMs(options.holdBackPollMs, 50, 'holdBackPollMs');
    this.#retryDelayMs = resolveWaitMs(options.retryDelayMs, 1_000, 'retryDelayMs');
    this.#policy =
      options.checkpointEvery === undefined
        ? checkpointEveryEvent
        : resolveCheckpointPolicy(options.checkpointEvery, 'checkpointEvery');
    this.#report = errorReporter(options.onError, (subscriptionId) => `subscription ${quoteText(subscriptionId)}`);
    this.#telemetry = SubscriptionTelemetry.resolve(options, this.#report);
    if (this.#strategy !== undefined && !evaluatesWriteConditions(this.#storage)) {
      throw new StorageCannotBeFencedError(storageName(this.#storage));
    }
    this.#unfencedWriter = {
      // Async: a storage that throws instead of rejecting still fails the write as a rejection, as the writer does.
      save: async (subscriptionId, checkpoint) =>
        this.#storage.save(subscriptionId, checkpoint, CheckpointWriteCondition.any()),
      saveStartPosition: (subscriptionId, checkpoint) => pinStartPosition(this.#storage, subscriptionId, checkpoint),
    };
    const strategy = this.#strategy;
    if (strategy !== undefined) {
      const onLeaseEvent = (subscriptionId: string, subscriberId: string): void => {
        const subscription = subscriberId === this.subscriberId ? this.#subscriptions.get(subscriptionId) : undefined;
        if (subscription === undefined) {
          return;
        }
        // A run whose lease is gone, changed hands or went unrenewed past hasLock's mark ends now, not at its next
        // event: an idle source would otherwise keep it, and a handler in flight would run on after the lease expired.
        if (
          subscription.state.name === 'delivering' &&
          (strategy.fencingToken(subscriptionId) !== subscription.state.token || !this.#hasLock(subscription))
        ) {
          subscription.run?.stop('leaseLost');
        }
        subscription.wakeup.wake();
      };
      this.#stopListening.push(strategy.onGranted(onLeaseEvent), strategy.onProhibited(onLeaseEvent));
    }
  }

  /**
   * Starts delivering `subscriptionId`'s events from `source` to `handler` on this node (once it holds the lease,
   * when a strategy is given). Everything that could never work is refused here, at once; registration and delivery
   * then run in the background, and their failures go to `onError`.
   * @throws TypeError for an empty or malformed id (the ids a lease strategy refuses), an id the storage's or the
   *   strategy's `assertSubscriptionId` refuses (NUL for PostgreSQL), a malformed `startPosition`,
   *   a source or handler that is not a function, or a `checkpointEvery` without `events` or `ms`.
   * @throws RangeError for a `checkpointEvery` whose `events` or `ms` is out of range.
   * @throws StorageCannotBeFencedError when a strategy is given and the storage cannot fence this id.
   * @throws DuplicateSubscriptionIdError when this instance already subscribed `subscriptionId`.
   * @throws DuplicateSubscriberError when another `DurableSubscription` subscribed it on the same strategy instance.
   */
  subscribe<E>(
    subscriptionId: string,
    source: EventSource<E>,
    handler: EventHandler<E>,
    options: SubscribeOptions = {},
  ): void {
    assertLeasedSubscriptionId(subscriptionId);
    this.#storage.assertSubscriptionId?.(subscriptionId);
    this.#strategy?.assertSubscriptionId?.(subscriptionId);
    if (typeof source !== 'function' || typeof handler !== 'function') {
      throw new TypeError(
        `subscribe(${quoteText(subscriptionId)}, source, handler) needs a source and a handler function, got ` +
          `${typeof source} and ${typeof handler}.`,
      );
    }
    if (options.startPosition !== undefined) {
      assertCheckpoint(options.startPosition);
    }
    const policy =
      options.checkpointEvery === undefined
        ? this.#policy
        : resolveCheckpointPolicy(options.checkpointEvery, `subscribe(${quoteText(subscriptionId)}) checkpointEvery`);
    if (this.#stopped) {
      throw new Error(
        `Cannot subscribe ${quoteText(subscriptionId)}: this DurableSubscription has been shut down. Create a new one.`,
      );
    }
    if (this.#subscriptions.has(subscriptionId)) {
      throw new DuplicateSubscriptionIdError(subscriptionId);
    }
    const strategy = this.#strategy;
    if (strategy !== undefined && !evaluatesWriteConditionsFor(this.#storage, subscriptionId)) {
      throw new StorageCannotBeFencedError(storageName(this.#storage), subscriptionId);
    }
    const releaseClaim =
      strategy === undefined ? () => undefined : claimSubscription(strategy, subscriptionId, this.subscriberId);
    const subscription: Subscription = {
      id: subscriptionId,
      source: source as EventSource<unknown>,
      handler: handler as EventHandler<unknown>,
      startPosition: options.startPosition,
      policy,
      wakeup: new Wakeup(),
      state: initialSubscriptionState(this.#rules),
      run: undefined,
      registering: false,
      unregisteringStopped: undefined,
      pausers: [],
      reportedMissingToken: false,
      releaseClaim,
      supervisor: Promise.resolve(),
    };
    this.#subscriptions.set(subscriptionId, subscription);
    subscription.supervisor = this.#supervise(subscription);
  }

  /**
   * Stops delivering `subscriptionId` here and unregisters it from the strategy (giving up its lease, or its place
   * in line when it is still waiting for one), once the handler in flight has returned, or `giveUpAfterMs` after the
   * pause when given. `isPaused` answers true at once; resolves once it is unregistered.
   * @throws UnknownSubscriptionError when this instance never subscribed `subscriptionId`.
   */
  async pause(subscriptionId: string, options: PauseOptions = {}): Promise<void> {
    const subscription = this.#known(subscriptionId);
    if (subscription.state.name === 'paused' || subscription.state.name === 'stopped') {
      return;
    }
    const giveUpAfterMs =
      options.giveUpAfterMs === undefined ? undefined : resolveWaitMs(options.giveUpAfterMs, 0, 'giveUpAfterMs');
    const unregistered = new Promise<void>((resolve) => subscription.pausers.push(resolve));
    this.#apply(subscription, { type: 'pause' });
    const run = subscription.run;
    run?.stop('paused');
    subscription.wakeup.wake();
    if (giveUpAfterMs !== undefined && (await raceWithTimeout(unregistered, giveUpAfterMs)) === timedOut) {
      await this.#giveUpUnderHandler(subscription, run);
    }
    await unregistered;
  }

  /** For a pause that waited long enough: once the run's writes sent are answered, unregister under its handler. */
  async #giveUpUnderHandler(subscription: Subscription, run: DeliveryRun | undefined): Promise<void> {
    await run?.checkpoints.flush().catch(() => undefined);
    const { state } = subscription;
    if (state.name === 'paused' && state.registered && this.#abandonRun(subscription)) {
      await this.#strategy?.unregister(subscription.id, this.subscriberId);
      this.#apply(subscription, { type: 'unregistered' });
    }
  }

  /**
   * Registers a paused subscription with the strategy again; delivery resumes from the stored checkpoint once
   * this node holds the lease. A no-op for a subscription that is not paused.
   * @throws UnknownSubscriptionError when this instance never subscribed `subscriptionId`.
   */
  async resume(subscriptionId: string): Promise<void> {
    const subscription = this.#known(subscriptionId);
    this.#apply(subscription, { type: 'resume' });
    // A pause that the supervisor had not acted on yet is superseded; its caller must not wait forever.
    this.#settlePausers(subscription);
    subscription.wakeup.wake();
  }

  /** Whether `subscriptionId` is paused on this instance; false for an id it never subscribed. */
  isPaused(subscriptionId: string): boolean {
    return this.#subscriptions.get(subscriptionId)?.state.name === 'paused';
  }

  /** Whether this node is delivering `subscriptionId` right now (false while it waits for the lease or fences). */
  isRunning(subscriptionId: string): boolean {
    const subscription = this.#subscriptions.get(subscriptionId);
    return subscription?.state.name === 'delivering' && subscription.run?.started === true;
  }

  /**
   * Stops delivery (a handler already running finishes, and the pending position is written, fenced), then makes one
   * attempt to give up each lease, waiting at most 5 s in all. A lease whose last checkpoint write is still
   * unanswered when the 5 s run out is not given up (the write must not land after it), and a handler still running
   * then writes nothing more. The strategy itself is left running: its owner shuts it down.
   */
  async shutdown(): Promise<void> {
    if (this.#stopped) {
      return;
    }
    this.#stopped = true;
    const deadline = new ShutdownDeadline();
    const subscriptions = [...this.#subscriptions.values()];
    for (const subscription of subscriptions) {
      this.#apply(subscription, { type: 'stop' });
      subscription.run?.stop('shutDown');
      subscription.wakeup.wake();
    }
    const settled = new Set<Subscription>();
    await deadline.settle(
      subscriptions.map(async (subscription) => {
        await subscription.supervisor;
        settled.add(subscription);
      }),
    );
    for (const stop of this.#stopListening) {
      stop();
    }
    const mayGiveUp = subscriptions.filter(
      (subscription) => settled.has(subscription) || this.#abandonRun(subscription),
    );
    // From here on a supervisor still running gives its own registration up when it ends (see #supervise).
    this.#leavingGivenUp = true;
    await deadline.settle(
      mayGiveUp.filter(isStillRegistered).map((subscription) => this.#unregisterStopped(subscription)),
    );
    for (const subscription of subscriptions) {
      if (!isStillRegistered(subscription) && !subscription.registering) {
        subscription.releaseClaim();
      }
      this.#settlePausers(subscription);
    }
  }

  /**
   * Unregisters a stopped subscription from the strategy, once, whoever asks first: shutdown, or the subscription's own
   * supervisor when its registration landed, or its run ended, after shutdown had given the leases up. Then gives its
   * claim on the strategy back, so that another `DurableSubscription` may subscribe the id.
   */
  #unregisterStopped(subscription: Subscription): Promise<void> {
    subscription.unregisteringStopped ??= (async () => {
      try {
        await this.#strategy?.unregister(subscription.id, this.subscriberId);
        this.#apply(subscription, { type: 'unregistered' });
      } finally {
        subscription.releaseClaim();
      }
    })();
    return subscription.unregisteringStopped;
  }

  /**
   * For a run still going when shutdown's 5 s ran out: sends no more checkpoint writes for it. Answers whether its
   * lease may be given up now, which is false while one of its writes is still unanswered: given up first, the lease
   * could go to another node before that write lands.
   */
  #abandonRun(subscription: Subscription): boolean {
    const unanswered = subscription.run?.checkpoints.close() ?? false;
    if (unanswered) {
      this.#report(
        new Error(
          `Subscription ${quoteText(subscription.id)}: a checkpoint write was still unanswered when shutdown's 5 s ran out, ` +
            'so this node did not give up the lease yet (a pending write must never land after the lease is given up); it ' +
            'gives it up once the write is answered, or the lease goes when the strategy is shut down. Events after the ' +
            'stored checkpoint will be delivered again.',
        ),
        subscription.id,
      );
    }
    return !unanswered;
  }

  #known(subscriptionId: string): Subscription {
    const subscription = this.#subscriptions.get(subscriptionId);
    if (subscription === undefined) {
      throw new UnknownSubscriptionError(subscriptionId);
    }
    return subscription;
  }

  /** The only place a subscription's state changes. */
  #apply(subscription: Subscription, event: SubscriptionEvent): void {
    subscription.state = nextSubscriptionState(subscription.state, event, this.#rules);
    if (subscription.state.name === 'paused' && !subscription.state.registered) {
      this.#settlePausers(subscription);
    }
  }

  #settlePausers(subscription: Subscription): void {
    for (const resolve of subscription.pausers.splice(0)) {
      resolve();
    }
  }

  /** Runs the effect the current state asks for and applies what came of it, until the subscription is stopped. */
  async #supervise(subscription: Subscription): Promise<void> {
    for (;;) {
      const state = subscription.state;
      if (state.name === 'stopped') {
        await this.#leaveLate(subscription, state.registered);
        return;
      }
      try {
        const event = await this.#effect(subscription, state);
        if (event !== undefined) {
          this.#apply(subscription, event);
        }
      } catch (error) {
        this.#report(error, subscription.id);
        await subscription.wakeup.wait(this.#retryDelayMs);
      }
    }
  }

  /** What being in `state` takes; resolves to the event it led to, or `undefined` to look at the state again. */
  async #effect(
    subscription: Subscription,
    state: Exclude<SubscriptionState, { readonly name: 'stopped' }>,
  ): Promise<SubscriptionEvent | undefined> {
    const strategy = this.#strategy;
    switch (state.name) {
      case 'registering':
        subscription.registering = true;
        try {
          await strategy?.register(subscription.id, this.subscriberId);
        } finally {
          subscription.registering = false;
        }
        return { type: 'registered' };
      case 'waiting':
        return this.#awaitGrant(subscription, state.notBefore);
      case 'grace':
        return this.#awaitGraceEnd(subscription, state.token, state.endsAt);
      case 'delivering':
        return this.#deliver(subscription, state.token, state.lastToken);
      case 'refused':
        return this.#giveUpAfterRefusal(subscription, state.storedVersion);
      case 'paused':
        if (state.registered) {
          await strategy?.unregister(subscription.id, this.subscriberId);
          return { type: 'unregistered' };
        }
        await subscription.wakeup.wait(this.#retryDelayMs);
        return undefined;
    }
  }

  /**
   * For a supervisor that ends after shutdown chose the leases it gives up: a registration that landed since (a
   * register slower than shutdown's 5 s), or a run that kept its lease because its last write was unanswered then, is
   * unregistered now; otherwise the strategy would keep refreshing a lease that nobody delivers under.
   */
  async #leaveLate(subscription: Subscription, registered: boolean): Promise<void> {
    if (!this.#leavingGivenUp) {
      return;
    }
    if (!registered) {
      subscription.releaseClaim();
      return;
    }
    try {
      await this.#unregisterStopped(subscription);
    } catch (error) {
      this.#report(error, subscription.id);
    }
  }

  async #awaitGrant(subscription: Subscription, notBefore: number): Promise<SubscriptionEvent | undefined> {
    if (performance.now() < notBefore) {
      await subscription.wakeup.wait(notBefore - performance.now());
      return undefined;
    }
    // A run that ends at once (a source that ends, a handler that throws, with retryDelayMs 0) comes straight back
    // here; without a timer in between, it would be retried on microtasks alone and starve timers, I/O and signal
    // handlers. A timer rather than setImmediate: tests on fake timers drive it like every other wait.
    await nextTimerTurn();
    const now = performance.now();
    if (this.#strategy === undefined) {
      return { type: 'granted', token: undefined, now };
    }
    const token = this.#grantedToken(subscription);
    if (token === undefined) {
      await subscription.wakeup.wait(this.#holdBackPollMs);
      return undefined;
    }
    return { type: 'granted', token, now };
  }

  async #awaitGraceEnd(
    subscription: Subscription,
    token: bigint,
    endsAt: number,
  ): Promise<SubscriptionEvent | undefined> {
    if (this.#strategy?.fencingToken(subscription.id) !== token) {
      return { type: 'leaseLost' };
    }
    const remaining = endsAt - performance.now();
    if (remaining > 0) {
      await subscription.wakeup.wait(Math.min(remaining, this.#holdBackPollMs * 10));
      return undefined;
    }
    return { type: 'graceOver' };
  }

  /**
   * After a refusal under a lease this node may still hold: raise the strategy's token floor above the stored
   * version, then give the lease up, staying a candidate. The next grant, here or elsewhere, then mints a token that
   * fences again; waiting for a newer grant while refreshing this one would wait forever.
   */
  async #giveUpAfterRefusal(subscription: Subscription, storedVersion: bigint | undefined): Promise<SubscriptionEvent> {
    const strategy = this.#strategy;
    if (strategy !== undefined) {
      if (storedVersion !== undefined && strategy.raiseFencingTokenAbove !== undefined) {
        try {
          await strategy.raiseFencingTokenAbove(subscription.id, storedVersion);
        } catch (error) {
          // Giving the lease up matters more: the next holder's refusal raises the floor again.
          this.#report(error, subscription.id);
        }
      }
      await strategy.release(subscription.id, this.subscriberId);
    }
    return { type: 'gaveUp', retryAt: performance.now() + this.#retryDelayMs };
  }

  /** The token to deliver under now, or `undefined` while this node may not deliver. */
  #grantedToken(subscription: Subscription): bigint | undefined {
    const strategy = this.#strategy;
    if (strategy === undefined || !this.#hasLock(subscription)) {
      return undefined;
    }
    const token = strategy.fencingToken(subscription.id);
    if (token === undefined && !subscription.reportedMissingToken) {
      subscription.reportedMissingToken = true;
      this.#report(
        new Error(
          `Subscription ${quoteText(subscription.id)} holds the lease but the strategy gives no fencing token, so nothing is ` +
            'delivered (an unfenced checkpoint write is never sent). Another consumer of the same strategy instance is registered ' +
            'for this id: give each DurableSubscription its own strategy instance.',
        ),
        subscription.id,
      );
    }
    return token;
  }

  /**
   * One run under one grant; resolves to how it ended. Its last step writes the pending position, fenced, unless a
   * write was refused or the strategy no longer reports this run's token; every way this node gives its lease up
   * (unregister on pause or shutdown, release after a refusal) is a later step, so no pending write lands after it.
   */
  async #deliver(
    subscription: Subscription,
    token: bigint | undefined,
    lastToken: bigint | undefined,
  ): Promise<SubscriptionEvent> {
    const run = new DeliveryRun({
      subscriptionId: subscription.id,
      token,
      policy: subscription.policy,
      writer: this.#strategy === undefined ? this.#unfencedWriter : this.#writerOfRun(token),
      stillHeld: () => this.#strategy === undefined || this.#strategy.fencingToken(subscription.id) === token,
    });
    subscription.run = run;
    let ended: SubscriptionEvent | undefined;
    let thrown: { readonly error: unknown } | undefined;
    try {
      ended = await this.#deliverEvents(subscription, run, lastToken);
    } catch (error) {
      thrown = { error };
    }
    run.stop('ended');
    const failed = run.checkpoints.failure ?? thrown;
    if (failed !== undefined && isRefusal(failed.error)) {
      // A refusal means a newer token has fenced (or the counter was lost): a pending write would be refused too.
      run.checkpoints.close();
    } else {
      // A failure of this write is kept in run.checkpoints.failure, read below.
      await run.checkpoints.finish().catch(() => undefined);
    }
    subscription.run = undefined;
    return this.#endOfRun(subscription, run, thrown, ended);
  }

  /**
   * The one place a run's failures are reported and turned into what happens next: a refused write (the first write
   * that failed decides over a handler's or source's error) ends in `refused`, so the lease is given up; any other
   * failure, a write whose outcome is unknown included, ends the run to be retried from the stored checkpoint.
   */
  #endOfRun(
    subscription: Subscription,
    run: DeliveryRun,
    thrown: { readonly error: unknown } | undefined,
    ended: SubscriptionEvent | undefined,
  ): SubscriptionEvent {
    const writeFailure = run.checkpoints.failure;
    if (thrown !== undefined && thrown.error !== writeFailure?.error) {
      this.#report(thrown.error, subscription.id);
    }
    if (writeFailure !== undefined) {
      this.#report(writeFailure.error, subscription.id);
    }
    const failure = writeFailure ?? thrown;
    if (failure === undefined) {
      return ended ?? { type: 'leaseLost' };
    }
    if (isRefusal(failure.error) && run.token !== undefined) {
      this.#telemetry?.refused(subscription.id);
      return { type: 'refused', token: run.token, storedVersion: failure.error.storedVersion };
    }
    return { type: 'runEnded', retryAt: performance.now() + this.#retryDelayMs };
  }

  /** Fences, positions, and delivers events until the run stops; resolves to how it ended, rejects with a failure. */
  async #deliverEvents(
    subscription: Subscription,
    run: DeliveryRun,
    lastToken: bigint | undefined,
  ): Promise<SubscriptionEvent> {
    const { signal, token } = run;
    const from = await fenceOnAcquire({
      storage: this.#storage,
      writer: run.writer,
      subscriptionId: subscription.id,
      token,
      lastToken,
      fence: this.#fenceOnAcquire,
      startPosition: subscription.startPosition,
    });
    if (signal.aborted) {
      return { type: 'leaseLost' };
    }
    run.started = true;
    const iterator = subscription.source(from, signal)[Symbol.asyncIterator]();
    try {
      for (;;) {
        const next = await untilAborted(iterator.next(), signal);
        if (next === undefined) {
          return { type: 'leaseLost' };
        }
        if (next.done === true) {
          return { type: 'runEnded', retryAt: performance.now() + this.#retryDelayMs };
        }
        if (!(await this.#holdBack(subscription, token, signal))) {
          run.stop('leaseLost');
          return { type: 'leaseLost' };
        }
        const { event, position } = next.value;
        await (this.#telemetry === undefined
          ? subscription.handler(event, position, run.context)
          : this.#telemetry.handle(subscription.id, next.value, () =>
              subscription.handler(event, position, run.context),
            ));
        await run.checkpoints.handled(next.value.position);
      }
    } finally {
      // Not awaited: an async generator parked in an await answers return() only after that await settles.
      iterator.return?.().catch(() => undefined);
    }
  }

  /**
   * A writer bound to one run's token: a handler still running after a pause or a lost lease writes with it, and is
   * refused if another holder has fenced since, instead of writing unconditionally for want of a token.
   */
  #writerOfRun(token: bigint | undefined): FencedCheckpointWriter {
    return new FencedCheckpointWriter(this.#storage, { fencingToken: () => token });
  }

  /** Waits while this node's lease is unconfirmed. False when the run must end: stopped, or the lease is gone or changed. */
  async #holdBack(subscription: Subscription, token: bigint | undefined, signal: AbortSignal): Promise<boolean> {
    const strategy = this.#strategy;
    for (;;) {
      if (signal.aborted) {
        return false;
      }
      if (strategy === undefined) {
        return true;
      }
      if (strategy.fencingToken(subscription.id) !== token) {
        return false;
      }
      if (this.#hasLock(subscription)) {
        return true;
      }
      await subscription.wakeup.wait(this.#holdBackPollMs);
    }
  }

  #hasLock(subscription: Subscription): boolean {
    try {
      return this.#strategy?.hasLock(subscription.id, this.subscriberId) ?? true;
    } catch {
      // A hasLock that throws counts as false: the event waits, it is never dropped.
      return false;
    }
  }
}

/** Resolves from a timer of its own, after timers and I/O that are due have had their turn. */
function nextTimerTurn(): Promise<void> {
  return new Promise((resolve) => {
    setTimeout(resolve, 0);
  });
}

/** Whether the strategy may still have a stopped subscription as a candidate. */
function isStillRegistered(subscription: Subscription): boolean {
  return subscription.state.name === 'stopped' && subscription.state.registered;
}

function isRefusal(error: unknown): error is CheckpointWriteConditionNotFulfilledError {
  return error instanceof CheckpointWriteConditionNotFulfilledError;
}

async function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return undefined;
  }
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<undefined>((resolve) => {
    onAbort = () => {
      resolve(undefined);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([promise, aborted]);
  } finally {
    if (onAbort !== undefined) {
      signal.removeEventListener('abort', onAbort);
    }
    promise.catch(() => undefined);
  }
}

/** Per strategy instance: which subscriber id each subscription id is subscribed under, by any `DurableSubscription`. */
const claims = new WeakMap<CompetingConsumerStrategy, Map<string, string>>();

/**
 * Claims `subscriptionId` on `strategy` for one `DurableSubscription` and returns the function that gives the claim
 * back. Across `DurableSubscription` instances in this process, so that two of them on one strategy instance never
 * both register one id. Giving it back twice is harmless: it never gives back a later claim of the same id.
 * @throws DuplicateSubscriberError when the id is claimed already.
 */
function claimSubscription(
  strategy: CompetingConsumerStrategy,
  subscriptionId: string,
  subscriberId: string,
): () => void {
  let claimed = claims.get(strategy);
  if (claimed === undefined) {
    claimed = new Map();
    claims.set(strategy, claimed);
  }
  const registered = claimed.get(subscriptionId);
  if (registered !== undefined) {
    throw new DuplicateSubscriberError(subscriptionId, subscriberId, registered);
  }
  claimed.set(subscriptionId, subscriberId);
  const ofStrategy = claimed;
  let released = false;
  return () => {
    if (!released) {
      released = true;
      ofStrategy.delete(subscriptionId);
    }
  };
}

/** Lets a waiting loop sleep until it is woken or a timeout passes, whichever comes first. */
class Wakeup {
  #wake: (() => void) | undefined;
  #woken: Promise<void> | undefined;

  /** Resolves when {@link Wakeup.wake} is called or after `timeoutMs`. */
  async wait(timeoutMs: number): Promise<void> {
    this.#woken ??= new Promise<void>((resolve) => {
      this.#wake = resolve;
    });
    await raceWithTimeout(this.#woken, timeoutMs);
  }

  /** Wakes every current waiter. */
  wake(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    this.#woken = undefined;
    wake?.();
  }
}
