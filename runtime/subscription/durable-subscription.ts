import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Checkpoint } from '../checkpoint.js';
import { evaluatesWriteConditionsFor, type CheckpointStorage } from '../checkpoint-storage.js';
import { CheckpointWriteConditionNotFulfilledError } from '../errors/checkpoint-write-condition-not-fulfilled-error.js';
import { FencedCheckpointWriter } from '../fenced-checkpoint-writer.js';
import type { CompetingConsumerStrategy } from '../leases/competing-consumer-strategy.js';
import { assertSubscriptionId } from '../subscription-id.js';
import { DuplicateSubscriptionIdError } from './duplicate-subscription-id-error.js';
import { UnknownSubscriptionError } from './unknown-subscription-error.js';
import { Wakeup } from './wakeup.js';

/** One event of a subscription and the position to checkpoint once it is handled. */
export interface PositionedEvent<E> {
  readonly position: Checkpoint;
  readonly event: E;
}

/**
 * Reads a subscription's events after `from` (from the beginning when `undefined`). `signal` aborts when delivery
 * stops (lease lost, pause, shutdown); a source that ends is asked again from the stored checkpoint later.
 */
export type EventSource<E> = (from: Checkpoint | undefined, signal: AbortSignal) => AsyncIterable<PositionedEvent<E>>;

/** Handles one event; it may run more than once for the same event (delivery is at-least-once). */
export type EventHandler<E> = (event: E, position: Checkpoint) => void | Promise<void>;

/** Options of {@link DurableSubscription.subscribe}. */
export interface SubscribeOptions {
  /** Pinned with `saveStartPosition` (`ifAbsent()`) when nothing is stored, so every node starts from one position. */
  readonly startPosition?: Checkpoint;
}

/** Options of {@link DurableSubscription}. */
export interface DurableSubscriptionOptions {
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
  /** Wait after a failed run (handler, source or storage error) or an ended source; 1 000 ms by default. */
  readonly retryDelayMs?: number;
  /**
   * Told about every failure, including a refused checkpoint write (`CheckpointWriteConditionNotFulfilledError`:
   * this node lost its lease). A warning on the console by default.
   */
  readonly onError?: (error: unknown, subscriptionId: string) => void;
}

interface Subscription {
  readonly id: string;
  readonly source: EventSource<unknown>;
  readonly handler: EventHandler<unknown>;
  readonly startPosition: Checkpoint | undefined;
  readonly wakeup: Wakeup;
  paused: boolean;
  registered: boolean;
  running: boolean;
  run: AbortController | undefined;
  /** The token of the grant this run delivers under; every checkpoint write of the run is stamped with it. */
  runToken: bigint | undefined;
  /** A write stamped with this token was refused: wait for a newer grant, never run under it again. */
  refusedToken: bigint | undefined;
  /** The grant whose takeover grace has passed. */
  settledToken: bigint | undefined;
  /** Whether the "lock but no token" misconfiguration was reported already. */
  reportedMissingToken: boolean;
  pausers: (() => void)[];
  supervisor: Promise<void>;
}

const shutdownWaitMs = 5_000;

/**
 * Delivers events to handlers and checkpoints each handled event through a {@link FencedCheckpointWriter} stamped
 * with the fencing token of the lease it was delivered under. Resumes from the stored checkpoint; holds events back
 * while `hasLock` is false; stops a run on a refused write and waits for the strategy to grant a newer lease.
 */
export class DurableSubscription {
  /** The id this node competes under. */
  readonly subscriberId: string;
  readonly #storage: CheckpointStorage;
  readonly #strategy: CompetingConsumerStrategy | undefined;
  readonly #writer: FencedCheckpointWriter;
  readonly #fenceOnAcquire: boolean;
  readonly #holdBackPollMs: number;
  readonly #takeoverGraceMs: number;
  readonly #retryDelayMs: number;
  readonly #onError: (error: unknown, subscriptionId: string) => void;
  readonly #subscriptions = new Map<string, Subscription>();
  readonly #stopListening: (() => void)[] = [];
  #stopped = false;

  /** @throws StorageCannotBeFencedError when a strategy is given and the storage cannot evaluate write conditions. */
  constructor(options: DurableSubscriptionOptions) {
    this.subscriberId = options.subscriberId ?? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
    this.#storage = options.storage;
    this.#strategy = options.strategy;
    this.#fenceOnAcquire = options.fenceOnAcquire ?? true;
    this.#holdBackPollMs = options.holdBackPollMs ?? 50;
    this.#takeoverGraceMs = options.takeoverGraceMs ?? Math.floor(((options.strategy?.leaseTimeMs ?? 0) * 2) / 3);
    this.#retryDelayMs = options.retryDelayMs ?? 1_000;
    this.#onError = options.onError ?? warnOnConsole;
    this.#writer = new FencedCheckpointWriter(
      this.#storage,
      this.#strategy === undefined ? {} : { fencingToken: (subscriptionId) => this.#tokenOfRun(subscriptionId) },
    );
    if (this.#strategy !== undefined) {
      const wake = (subscriptionId: string, subscriberId: string): void => {
        if (subscriberId === this.subscriberId) {
          this.#subscriptions.get(subscriptionId)?.wakeup.wake();
        }
      };
      this.#stopListening.push(this.#strategy.onGranted(wake), this.#strategy.onProhibited(wake));
    }
  }

  /**
   * Starts delivering `subscriptionId`'s events from `source` to `handler` on this node (once it holds the lease,
   * when a strategy is given). Registration and delivery run in the background; failures go to `onError`.
   * @throws DuplicateSubscriptionIdError when this instance already subscribed `subscriptionId`.
   */
  subscribe<E>(
    subscriptionId: string,
    source: EventSource<E>,
    handler: EventHandler<E>,
    options: SubscribeOptions = {},
  ): void {
    assertSubscriptionId(subscriptionId);
    if (this.#stopped) {
      throw new Error(
        `Cannot subscribe ${JSON.stringify(subscriptionId)}: this DurableSubscription has been shut down. Create a new one.`,
      );
    }
    if (this.#subscriptions.has(subscriptionId)) {
      throw new DuplicateSubscriptionIdError(subscriptionId);
    }
    const subscription: Subscription = {
      id: subscriptionId,
      source: source as EventSource<unknown>,
      handler: handler as EventHandler<unknown>,
      startPosition: options.startPosition,
      wakeup: new Wakeup(),
      paused: false,
      registered: false,
      running: false,
      run: undefined,
      runToken: undefined,
      refusedToken: undefined,
      settledToken: undefined,
      reportedMissingToken: false,
      pausers: [],
      supervisor: Promise.resolve(),
    };
    this.#subscriptions.set(subscriptionId, subscription);
    subscription.supervisor = this.#supervise(subscription);
  }

  /**
   * Stops delivering `subscriptionId` here and unregisters it from the strategy (giving up its lease, or its place
   * in line when it is still waiting for one). `isPaused` answers true at once; resolves once it is unregistered.
   * @throws UnknownSubscriptionError when this instance never subscribed `subscriptionId`.
   */
  async pause(subscriptionId: string): Promise<void> {
    const subscription = this.#known(subscriptionId);
    if (subscription.paused) {
      return;
    }
    subscription.paused = true;
    subscription.run?.abort();
    const unregistered = new Promise<void>((resolve) => subscription.pausers.push(resolve));
    subscription.wakeup.wake();
    if (!this.#stopped) {
      await unregistered;
    }
  }

  /**
   * Registers a paused subscription with the strategy again; delivery resumes from the stored checkpoint once
   * this node holds the lease. A no-op for a subscription that is not paused.
   * @throws UnknownSubscriptionError when this instance never subscribed `subscriptionId`.
   */
  async resume(subscriptionId: string): Promise<void> {
    const subscription = this.#known(subscriptionId);
    subscription.paused = false;
    // A pause that the supervisor had not acted on yet is superseded; its caller must not wait forever.
    for (const resolve of subscription.pausers.splice(0)) {
      resolve();
    }
    subscription.wakeup.wake();
  }

  /** Whether `subscriptionId` is paused on this instance; false for an id it never subscribed. */
  isPaused(subscriptionId: string): boolean {
    return this.#subscriptions.get(subscriptionId)?.paused ?? false;
  }

  /** Whether this node is delivering `subscriptionId` right now (false while it waits for the lease). */
  isRunning(subscriptionId: string): boolean {
    return this.#subscriptions.get(subscriptionId)?.running ?? false;
  }

  /**
   * Stops delivery (a handler already running finishes and checkpoints), then makes one attempt to give up each
   * lease, waiting at most 5 s in all. The strategy itself is left running: its owner shuts it down.
   */
  async shutdown(): Promise<void> {
    if (this.#stopped) {
      return;
    }
    this.#stopped = true;
    const subscriptions = [...this.#subscriptions.values()];
    for (const subscription of subscriptions) {
      subscription.run?.abort();
      subscription.wakeup.wake();
    }
    const deadline = performance.now() + shutdownWaitMs;
    await withDeadline(Promise.allSettled(subscriptions.map((subscription) => subscription.supervisor)), deadline);
    for (const stop of this.#stopListening) {
      stop();
    }
    const strategy = this.#strategy;
    if (strategy !== undefined) {
      const giveUps = subscriptions
        .filter((subscription) => subscription.registered)
        .map((subscription) => strategy.unregister(subscription.id, this.subscriberId));
      await withDeadline(Promise.allSettled(giveUps), deadline);
    }
    for (const subscription of subscriptions) {
      for (const resolve of subscription.pausers.splice(0)) {
        resolve();
      }
    }
  }

  #known(subscriptionId: string): Subscription {
    const subscription = this.#subscriptions.get(subscriptionId);
    if (subscription === undefined) {
      throw new UnknownSubscriptionError(subscriptionId);
    }
    return subscription;
  }

  async #supervise(subscription: Subscription): Promise<void> {
    const strategy = this.#strategy;
    while (!this.#stopped) {
      try {
        if (subscription.paused) {
          if (strategy !== undefined && subscription.registered) {
            subscription.registered = false;
            await strategy.unregister(subscription.id, this.subscriberId);
          }
          for (const resolve of subscription.pausers.splice(0)) {
            resolve();
          }
          await subscription.wakeup.wait(this.#retryDelayMs);
          continue;
        }
        if (strategy !== undefined && !subscription.registered) {
          await strategy.register(subscription.id, this.subscriberId);
          subscription.registered = true;
          continue;
        }
        const token = this.#grantedToken(subscription);
        if (strategy !== undefined && token === undefined) {
          await subscription.wakeup.wait(this.#holdBackPollMs);
          continue;
        }
        if (token !== undefined && token > 0n && this.#takeoverGraceMs > 0 && subscription.settledToken !== token) {
          // Token 0 is the first lease ever taken on this id: no earlier holder can still be delivering.
          if (await this.#waitOutTakeoverGrace(subscription)) {
            subscription.settledToken = token;
          }
          continue;
        }
        const finished = await this.#deliver(subscription, token);
        if (finished) {
          await subscription.wakeup.wait(this.#retryDelayMs);
        }
      } catch (error) {
        this.#report(error, subscription.id);
        await subscription.wakeup.wait(this.#retryDelayMs);
      }
    }
  }

  /** Resolves to true once the takeover grace has passed, false when stopped or paused before then. */
  async #waitOutTakeoverGrace(subscription: Subscription): Promise<boolean> {
    const graceEnds = performance.now() + this.#takeoverGraceMs;
    for (;;) {
      if (this.#stopped || subscription.paused) {
        return false;
      }
      const remaining = graceEnds - performance.now();
      if (remaining <= 0) {
        return true;
      }
      await subscription.wakeup.wait(remaining);
    }
  }

  /** The token to deliver under now, or `undefined` while this node may not deliver. */
  #grantedToken(subscription: Subscription): bigint | undefined {
    const strategy = this.#strategy;
    if (strategy === undefined || !this.#hasLock(subscription)) {
      return undefined;
    }
    const token = strategy.fencingToken(subscription.id);
    if (token === undefined) {
      if (!subscription.reportedMissingToken) {
        subscription.reportedMissingToken = true;
        this.#report(
          new Error(
            `Subscription ${JSON.stringify(subscription.id)} holds the lease but the strategy gives no fencing token, so nothing is ` +
              'delivered (an unfenced checkpoint write is never sent). Another consumer of the same strategy instance is registered ' +
              'for this id: give each DurableSubscription its own strategy instance.',
          ),
          subscription.id,
        );
      }
      return undefined;
    }
    return subscription.refusedToken !== undefined && token <= subscription.refusedToken ? undefined : token;
  }

  /** One run under one grant. Resolves to true when the source ended, false when delivery stopped or was refused. */
  async #deliver(subscription: Subscription, token: bigint | undefined): Promise<boolean> {
    const run = new AbortController();
    subscription.run = run;
    subscription.runToken = token;
    try {
      const fence = token !== undefined && this.#fenceOnAcquire;
      // An id the storage cannot fence is left to the writer, which refuses it with StorageCannotBeFencedError.
      const advanceWriteVersion = evaluatesWriteConditionsFor(this.#storage, subscription.id)
        ? this.#storage.advanceWriteVersion?.bind(this.#storage)
        : undefined;
      if (fence && advanceWriteVersion !== undefined) {
        // One atomic step, before the read: from here on, writes stamped with an older token are refused, and the
        // read below sees the last checkpoint any older holder could still land, so nothing is written back over it.
        await advanceWriteVersion(subscription.id, token);
      }
      let from = await this.#storage.read(subscription.id);
      if (from === undefined && subscription.startPosition !== undefined) {
        from = await this.#writer.saveStartPosition(subscription.id, subscription.startPosition);
      }
      if (fence && advanceWriteVersion === undefined && from !== undefined) {
        // Fallback for a storage without advanceWriteVersion: a stale holder's write landing between the read above
        // and this write is overwritten with what was read (the one-round-trip gap of ADR 0402).
        from = await this.#writer.save(subscription.id, from);
      }
      if (run.signal.aborted) {
        return false;
      }
      subscription.running = true;
      const iterator = subscription.source(from, run.signal)[Symbol.asyncIterator]();
      try {
        for (;;) {
          const next = await untilAborted(iterator.next(), run.signal);
          if (next === undefined) {
            return false;
          }
          if (next.done === true) {
            return true;
          }
          if (!(await this.#holdBack(subscription, token, run.signal))) {
            return false;
          }
          await subscription.handler(next.value.event, next.value.position);
          await this.#writer.save(subscription.id, next.value.position);
        }
      } finally {
        // Not awaited: an async generator parked in an await answers return() only after that await settles.
        iterator.return?.().catch(() => undefined);
      }
    } catch (error) {
      if (error instanceof CheckpointWriteConditionNotFulfilledError && token !== undefined) {
        subscription.refusedToken = token;
        this.#report(error, subscription.id);
        return false;
      }
      throw error;
    } finally {
      subscription.running = false;
      subscription.run = undefined;
      subscription.runToken = undefined;
      run.abort();
    }
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

  #tokenOfRun(subscriptionId: string): bigint {
    const token = this.#subscriptions.get(subscriptionId)?.runToken;
    if (token === undefined) {
      throw new Error(
        `No fencing token for subscription ${JSON.stringify(subscriptionId)}: a checkpoint write outside a lease would be unfenced, so it was not sent.`,
      );
    }
    return token;
  }

  #report(error: unknown, subscriptionId: string): void {
    try {
      this.#onError(error, subscriptionId);
    } catch {
      // A failing error handler must not stop delivery.
    }
  }
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

/** Waits for `work` until `deadline` (a `performance.now()` reading) at the latest. */
async function withDeadline(work: Promise<unknown>, deadline: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, Math.max(0, deadline - performance.now()));
  });
  await Promise.race([work, timedOut]);
  clearTimeout(timer);
}

function warnOnConsole(error: unknown, subscriptionId: string): void {
  console.warn(
    `checkpoint-fencing: subscription ${JSON.stringify(subscriptionId)}:`,
    error instanceof Error ? error.message : error,
  );
}
