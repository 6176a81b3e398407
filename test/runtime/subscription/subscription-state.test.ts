import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  initialSubscriptionState,
  nextSubscriptionState,
  type SubscriptionEvent,
  type SubscriptionRules,
  type SubscriptionState,
} from '../../../runtime/subscription/subscription-state.js';

const leased: SubscriptionRules = { leased: true, takeoverGraceMs: 200 };
const alone: SubscriptionRules = { leased: false, takeoverGraceMs: 0 };

/** Applies `events` in order from the initial state and returns every state passed through, the first included. */
function walk(rules: SubscriptionRules, events: readonly SubscriptionEvent[]): SubscriptionState[] {
  const states = [initialSubscriptionState(rules)];
  for (const event of events) {
    states.push(nextSubscriptionState(states.at(-1) ?? initialSubscriptionState(rules), event, rules));
  }
  return states;
}

describe('the subscription state machine, step by step', () => {
  it('with a strategy: register, wait, grace above token 0, deliver, refused, give up, wait again', () => {
    expect(
      walk(leased, [
        { type: 'registered' },
        { type: 'granted', token: 5n, now: 1_000 },
        { type: 'graceOver' },
        { type: 'refused', token: 5n, storedVersion: 9n },
        { type: 'gaveUp', retryAt: 1_500 },
        { type: 'granted', token: 10n, now: 1_499 },
        { type: 'granted', token: 10n, now: 2_000 },
      ]),
    ).toEqual([
      { name: 'registering' },
      { name: 'waiting', notBefore: 0 },
      { name: 'grace', token: 5n, endsAt: 1_200 },
      { name: 'delivering', token: 5n },
      { name: 'refused', token: 5n, storedVersion: 9n },
      { name: 'waiting', notBefore: 1_500, lastToken: 5n },
      { name: 'waiting', notBefore: 1_500, lastToken: 5n },
      { name: 'grace', token: 10n, endsAt: 2_200, lastToken: 5n },
    ]);
  });

  it('token 0, the first lease ever taken on an id, skips the grace', () => {
    expect(walk(leased, [{ type: 'registered' }, { type: 'granted', token: 0n, now: 7 }]).at(-1)).toEqual({
      name: 'delivering',
      token: 0n,
    });
  });

  it('a run that ends or fails waits until its retry time; a grant before then changes nothing', () => {
    const states = walk(leased, [
      { type: 'registered' },
      { type: 'granted', token: 0n, now: 0 },
      { type: 'runEnded', retryAt: 500 },
      { type: 'granted', token: 0n, now: 499 },
      { type: 'granted', token: 0n, now: 500 },
    ]);
    expect(states.slice(-3)).toEqual([
      { name: 'waiting', notBefore: 500, lastToken: 0n },
      { name: 'waiting', notBefore: 500, lastToken: 0n },
      { name: 'delivering', token: 0n, lastToken: 0n },
    ]);
  });

  it('remembers the token of the previous grant, so a lease handed back with it is told from a token minted twice', () => {
    const states = walk(leased, [
      { type: 'registered' },
      { type: 'granted', token: 0n, now: 0 },
      { type: 'leaseLost' },
      { type: 'granted', token: 0n, now: 10 },
      { type: 'leaseLost' },
      { type: 'pause' },
      { type: 'unregistered' },
      { type: 'resume' },
      { type: 'registered' },
      { type: 'granted', token: 4n, now: 20 },
    ]);
    expect(states[4]).toEqual({ name: 'delivering', token: 0n, lastToken: 0n });
    expect(states.at(-1)).toEqual({ name: 'grace', token: 4n, endsAt: 220, lastToken: undefined });
  });

  it('a lost lease in grace or while delivering goes back to waiting; a refusal of another token is ignored', () => {
    expect(
      walk(leased, [{ type: 'registered' }, { type: 'granted', token: 3n, now: 0 }, { type: 'leaseLost' }]).at(-1),
    ).toEqual({ name: 'waiting', notBefore: 0, lastToken: 3n });
    const delivering: SubscriptionState = { name: 'delivering', token: 3n, lastToken: undefined };
    expect(nextSubscriptionState(delivering, { type: 'refused', token: 2n, storedVersion: 4n }, leased)).toBe(
      delivering,
    );
    expect(nextSubscriptionState(delivering, { type: 'leaseLost' }, leased)).toEqual({
      name: 'waiting',
      notBefore: 0,
      lastToken: 3n,
    });
  });

  it('pause keeps track of the registration: a registration landing while paused is undone, resume registers again', () => {
    expect(
      walk(leased, [
        { type: 'pause' },
        { type: 'registered' },
        { type: 'unregistered' },
        { type: 'resume' },
        { type: 'registered' },
        { type: 'pause' },
        { type: 'resume' },
      ]),
    ).toEqual([
      { name: 'registering' },
      { name: 'paused', registered: false },
      { name: 'paused', registered: true },
      { name: 'paused', registered: false },
      { name: 'registering' },
      { name: 'waiting', notBefore: 0 },
      { name: 'paused', registered: true },
      { name: 'waiting', notBefore: 0 },
    ]);
  });

  it('a resume before the pause was acted on keeps the token of the grant before it, so its own lease is no token minted twice', () => {
    const states = walk(leased, [
      { type: 'registered' },
      { type: 'granted', token: 0n, now: 0 },
      { type: 'pause' },
      { type: 'resume' },
      { type: 'granted', token: 0n, now: 5 },
    ]);
    expect(states.slice(-3)).toEqual([
      { name: 'paused', registered: true, lastToken: 0n },
      { name: 'waiting', notBefore: 0, lastToken: 0n },
      { name: 'delivering', token: 0n, lastToken: 0n },
    ]);
    expect(
      walk(leased, [
        { type: 'registered' },
        { type: 'granted', token: 4n, now: 0 },
        { type: 'pause' },
        { type: 'resume' },
        { type: 'granted', token: 4n, now: 5 },
      ]).at(-1),
    ).toEqual({ name: 'grace', token: 4n, endsAt: 205, lastToken: 4n });
  });

  it('an unregister that lands after the resume that overtook it registers again: the strategy dropped the candidate', () => {
    const states = walk(leased, [
      { type: 'registered' },
      { type: 'granted', token: 0n, now: 0 },
      { type: 'pause' },
      { type: 'resume' },
      { type: 'unregistered' },
      { type: 'registered' },
      { type: 'granted', token: 1n, now: 10 },
    ]);
    expect(states.slice(-4)).toEqual([
      { name: 'waiting', notBefore: 0, lastToken: 0n },
      { name: 'registering' },
      { name: 'waiting', notBefore: 0 },
      { name: 'grace', token: 1n, endsAt: 210 },
    ]);
    const registering: SubscriptionState = { name: 'registering' };
    expect(nextSubscriptionState(registering, { type: 'unregistered' }, leased)).toBe(registering);
    // Even while a refusal is given up: that give-up still ends, and its gaveUp then changes nothing.
    const refused: SubscriptionState = { name: 'refused', token: 0n, storedVersion: undefined };
    const afterUnregister = nextSubscriptionState(refused, { type: 'unregistered' }, leased);
    expect(afterUnregister).toEqual(registering);
    expect(nextSubscriptionState(afterUnregister, { type: 'gaveUp', retryAt: 0 }, leased)).toBe(afterUnregister);
  });

  it('stop is final; a registration still in flight is remembered so that shutdown unregisters it', () => {
    expect(
      walk(leased, [
        { type: 'stop' },
        { type: 'registered' },
        { type: 'resume' },
        { type: 'granted', token: 1n, now: 0 },
        { type: 'unregistered' },
      ]),
    ).toEqual([
      { name: 'registering' },
      { name: 'stopped', registered: false },
      { name: 'stopped', registered: true },
      { name: 'stopped', registered: true },
      { name: 'stopped', registered: true },
      { name: 'stopped', registered: false },
    ]);
  });

  it('without a strategy: no registration, no grace, delivering unfenced', () => {
    expect(walk(alone, [{ type: 'granted', token: undefined, now: 0 }, { type: 'pause' }, { type: 'resume' }])).toEqual(
      [
        { name: 'waiting', notBefore: 0 },
        { name: 'delivering', token: undefined },
        { name: 'paused', registered: false },
        { name: 'waiting', notBefore: 0 },
      ],
    );
  });
});

const token = fc.bigInt({ min: 0n, max: 6n });
const anyEvent: fc.Arbitrary<SubscriptionEvent> = fc.oneof(
  fc.constant<SubscriptionEvent>({ type: 'registered' }),
  fc.constant<SubscriptionEvent>({ type: 'unregistered' }),
  fc.record({ type: fc.constant('granted' as const), token, now: fc.integer({ min: 0, max: 5_000 }) }),
  fc.constant<SubscriptionEvent>({ type: 'graceOver' }),
  fc.constant<SubscriptionEvent>({ type: 'leaseLost' }),
  fc.record({ type: fc.constant('runEnded' as const), retryAt: fc.integer({ min: 0, max: 5_000 }) }),
  fc.record({ type: fc.constant('refused' as const), token, storedVersion: fc.option(token, { nil: undefined }) }),
  fc.record({ type: fc.constant('gaveUp' as const), retryAt: fc.integer({ min: 0, max: 5_000 }) }),
  fc.constant<SubscriptionEvent>({ type: 'pause' }),
  fc.constant<SubscriptionEvent>({ type: 'resume' }),
  fc.constant<SubscriptionEvent>({ type: 'stop' }),
);

describe('the subscription state machine, over any sequence of events', () => {
  it('keeps its invariants whatever arrives, including events that no longer apply', () => {
    fc.assert(
      fc.property(fc.array(anyEvent, { maxLength: 60 }), (events) => {
        const states = walk(leased, events);
        for (const [index, event] of events.entries()) {
          const [before, after] = [states[index], states[index + 1]];
          if (before === undefined || after === undefined) {
            throw new Error('walk returns one state more than events');
          }
          // Stop is final; a paused subscription leaves only through resume or stop.
          if (before.name === 'stopped') {
            expect(after.name).toBe('stopped');
          }
          if (event.type === 'stop') {
            expect(after.name).toBe('stopped');
          }
          if (before.name === 'paused' && after.name !== 'paused') {
            expect(['resume', 'stop']).toContain(event.type);
          }
          if (event.type === 'pause' && before.name !== 'stopped') {
            expect(after.name).toBe('paused');
          }
          // A refusal only ever stops the run of the token it refused. Only a give-up leaves it, or an unregister that
          // a resume overtook: the give-up already under way still ends, and the subscription registers again.
          if (after.name === 'refused' && before.name !== 'refused') {
            expect(before).toMatchObject({ name: 'delivering', token: event.type === 'refused' ? event.token : -1n });
          }
          if (before.name === 'refused' && !['refused', 'paused', 'stopped'].includes(after.name)) {
            expect([event.type, after.name]).toEqual(
              event.type === 'gaveUp' ? ['gaveUp', 'waiting'] : ['unregistered', 'registering'],
            );
          }
          // Delivering under a token comes from a grant of that token, straight or through the grace.
          if (after.name === 'delivering' && before.name !== 'delivering') {
            const granted = before.name === 'grace' ? before.token : event.type === 'granted' ? event.token : -1n;
            expect(after.token).toBe(granted);
          }
          if (after.name === 'grace') {
            expect(after.token > 0n).toBe(true);
          }
          // The token a grant is compared with is the one this node was granted before, never a newer one.
          if ((after.name === 'grace' || after.name === 'delivering') && before.name === 'waiting') {
            expect(after.lastToken).toBe(before.lastToken);
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it('tracks the registration exactly: paused and stopped say whether the strategy still has the subscription', () => {
    fc.assert(
      fc.property(fc.array(anyEvent, { maxLength: 60 }), (events) => {
        // What the strategy knows, changed only by effects that really ran: a register started in `registering`
        // (it may land after a pause or a stop), an unregister started in a registered `paused` or `stopped` state
        // (it may land after a resume).
        let registered = false;
        let registerInFlight = false;
        let unregisterInFlight = false;
        let state = initialSubscriptionState(leased);
        for (const event of events) {
          if (state.name === 'registering') {
            registerInFlight = true;
          }
          if ((state.name === 'paused' || state.name === 'stopped') && state.registered) {
            unregisterInFlight = true;
          }
          if (event.type === 'registered') {
            if (!registerInFlight) {
              continue;
            }
            registerInFlight = false;
            registered = true;
          }
          if (event.type === 'unregistered') {
            if (!unregisterInFlight) {
              continue;
            }
            unregisterInFlight = false;
            registered = false;
          }
          state = nextSubscriptionState(state, event, leased);
          if (state.name === 'paused' || state.name === 'stopped') {
            expect(state.registered).toBe(registered);
          } else if (state.name !== 'registering') {
            expect(registered).toBe(true);
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it('without a strategy never registers, never waits out a grace, and never delivers under a token', () => {
    fc.assert(
      fc.property(fc.array(anyEvent, { maxLength: 60 }), (events) => {
        for (const state of walk(alone, events)) {
          expect(['registering', 'grace', 'refused']).not.toContain(state.name);
          if (state.name === 'delivering') {
            expect(state.token).toBeUndefined();
          }
          if (state.name === 'paused' || state.name === 'stopped') {
            expect(state.registered).toBe(false);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
