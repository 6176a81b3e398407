// The life of one subscription on one node, as data: what it is doing now (a state), what can happen to it (an
// event), and one pure function from the two to the next state. `DurableSubscription` runs the effect each state
// asks for (register, wait, fence and deliver, give the lease up, unregister) and feeds what came of it back in here.

/** Where one subscription of a `DurableSubscription` stands on this node. */
export type SubscriptionState =
  /** Becoming a candidate for the lease (`strategy.register`). */
  | { readonly name: 'registering' }
  /**
   * A candidate without a usable grant, or alone without a strategy; nothing is delivered before `notBefore`.
   * `lastToken` is the token of this node's previous grant, if any (see `delivering`).
   */
  | { readonly name: 'waiting'; readonly notBefore: number; readonly lastToken: bigint | undefined }
  /** Granted `token` (above 0), waiting until `endsAt` so that a holder whose lease vanished under it finds out and stops. */
  | { readonly name: 'grace'; readonly token: bigint; readonly endsAt: number; readonly lastToken: bigint | undefined }
  /**
   * Fencing on acquire, then delivering under `token` (`undefined` without a strategy: unfenced, alone). `lastToken`,
   * the token of this node's grant before this one, tells a lease handed back to this node with its own token (a
   * refresh that failed here but not in the store) from a token minted twice by a counter that was lost.
   */
  | { readonly name: 'delivering'; readonly token: bigint | undefined; readonly lastToken: bigint | undefined }
  /**
   * A write stamped `token` was refused over `storedVersion`: give the lease up (staying a candidate) after raising
   * the token floor above `storedVersion`, so this node does not sit on a lease it cannot write under.
   */
  | { readonly name: 'refused'; readonly token: bigint; readonly storedVersion: bigint | undefined }
  /**
   * Paused by the user: kept out of the lease; `registered` while the strategy still has it as a candidate. `lastToken`
   * is the token of this node's grant before the pause: a resume before the unregister keeps the lease, and the
   * grant that follows hands this node its own token back.
   */
  | { readonly name: 'paused'; readonly registered: boolean; readonly lastToken: bigint | undefined }
  /** Shut down; `registered` while the strategy still has it as a candidate (shutdown unregisters it). */
  | { readonly name: 'stopped'; readonly registered: boolean };

/** What can happen to a subscription: the outcome of an effect, or a call of the public API. */
export type SubscriptionEvent =
  | { readonly type: 'registered' }
  /**
   * An unregister landed. Started in `paused` or `stopped`, it may land after a `resume`: the strategy no longer has
   * the subscription as a candidate, so an active subscription registers again.
   */
  | { readonly type: 'unregistered' }
  /** This node holds the lease with `token` (`undefined` without a strategy), read at `now`. */
  | { readonly type: 'granted'; readonly token: bigint | undefined; readonly now: number }
  | { readonly type: 'graceOver' }
  /** The lease is gone or changed hands while in grace or delivering. */
  | { readonly type: 'leaseLost' }
  /** A run ended on its own (the source ended) or failed (handler, source or storage error): try again at `retryAt`. */
  | { readonly type: 'runEnded'; readonly retryAt: number }
  | { readonly type: 'refused'; readonly token: bigint; readonly storedVersion: bigint | undefined }
  /**
   * The lease was given up after a refusal; nothing is delivered before `retryAt`, so a strategy that hands the
   * same lease straight back (its release failed, or it does not drop the lease) cannot spin refusal after refusal.
   */
  | { readonly type: 'gaveUp'; readonly retryAt: number }
  | { readonly type: 'pause' }
  | { readonly type: 'resume' }
  | { readonly type: 'stop' };

/** What the transition needs to know about the subscription's configuration. */
export interface SubscriptionRules {
  /** Whether a strategy hands out the lease; without one, a subscription never registers and delivers alone. */
  readonly leased: boolean;
  /** The takeover grace for any token but 0. */
  readonly takeoverGraceMs: number;
}

/** The state a new subscription starts in. */
export function initialSubscriptionState(rules: SubscriptionRules): SubscriptionState {
  return rules.leased ? { name: 'registering' } : waiting(0, undefined);
}

/**
 * The one transition function. An event that does not apply to the current state changes nothing: an effect that
 * was still running when a pause or a shutdown moved the subscription on reports into a state that no longer
 * waits for it. `stopped` is final.
 */
export function nextSubscriptionState(
  state: SubscriptionState,
  event: SubscriptionEvent,
  rules: SubscriptionRules,
): SubscriptionState {
  if (!rules.leased && (event.type === 'registered' || event.type === 'unregistered')) {
    // Without a strategy nothing is ever registered.
    return state;
  }
  if (state.name === 'stopped') {
    // A registration still in flight when shutdown began lands here; shutdown unregisters it, or, once shutdown has
    // given the leases up, the subscription's own supervisor does.
    switch (event.type) {
      case 'registered':
        return { name: 'stopped', registered: true };
      case 'unregistered':
        return { name: 'stopped', registered: false };
      default:
        return state;
    }
  }
  if (state.name === 'paused') {
    switch (event.type) {
      case 'registered':
        return { ...state, registered: true };
      case 'unregistered':
        return { ...state, registered: false };
      case 'resume':
        return !rules.leased || state.registered ? waiting(0, state.lastToken) : { name: 'registering' };
      case 'stop':
        return { name: 'stopped', registered: state.registered };
      default:
        return state;
    }
  }
  // From here on the subscription is active: registered with the strategy, except while `registering`.
  const registered = rules.leased && state.name !== 'registering';
  switch (event.type) {
    case 'pause':
      return { name: 'paused', registered, lastToken: lastTokenOf(state) };
    case 'stop':
      return { name: 'stopped', registered };
    case 'unregistered':
      // The unregister of a pause that a resume overtook: the strategy dropped this candidate, so register again.
      return state.name === 'registering' ? state : { name: 'registering' };
    default:
      return activeTransition(state, event, rules);
  }
}

/** The token of this node's latest grant, as an active state knows it. */
function lastTokenOf(state: Exclude<SubscriptionState, { readonly name: 'paused' | 'stopped' }>): bigint | undefined {
  switch (state.name) {
    case 'registering':
      return undefined;
    case 'waiting':
      return state.lastToken;
    case 'grace':
    case 'delivering':
    case 'refused':
      return state.token;
  }
}

function activeTransition(
  state: Exclude<SubscriptionState, { readonly name: 'paused' | 'stopped' }>,
  event: SubscriptionEvent,
  rules: SubscriptionRules,
): SubscriptionState {
  switch (state.name) {
    case 'registering':
      return event.type === 'registered' ? waiting(0, undefined) : state;
    case 'waiting':
      if (event.type !== 'granted' || event.now < state.notBefore) {
        return state;
      }
      if (!rules.leased) {
        return { name: 'delivering', token: undefined, lastToken: undefined };
      }
      if (event.token === undefined) {
        // A lease without a token is no grant: an unfenced write is never sent under a strategy.
        return state;
      }
      // Token 0 is the first lease ever taken on this id: no earlier holder can still be delivering.
      if (event.token === 0n || rules.takeoverGraceMs <= 0) {
        return { name: 'delivering', token: event.token, lastToken: state.lastToken };
      }
      return {
        name: 'grace',
        token: event.token,
        endsAt: event.now + rules.takeoverGraceMs,
        lastToken: state.lastToken,
      };
    case 'grace':
      switch (event.type) {
        case 'graceOver':
          return { name: 'delivering', token: state.token, lastToken: state.lastToken };
        case 'leaseLost':
          return waiting(0, state.token);
        default:
          return state;
      }
    case 'delivering':
      switch (event.type) {
        case 'runEnded':
          return waiting(event.retryAt, state.token);
        case 'leaseLost':
          return waiting(0, state.token);
        case 'refused':
          // Only a refusal of this run's own token: without a strategy nothing is fenced, and nothing is given up.
          return event.token === state.token
            ? { name: 'refused', token: event.token, storedVersion: event.storedVersion }
            : state;
        default:
          return state;
      }
    case 'refused':
      return event.type === 'gaveUp' ? waiting(event.retryAt, state.token) : state;
  }
}

function waiting(notBefore: number, lastToken: bigint | undefined): SubscriptionState {
  return { name: 'waiting', notBefore, lastToken };
}
