import { describe as vitestDescribe, expect, it as vitestIt } from 'vitest';
import type { CompetingConsumerStrategy } from '../leases/competing-consumer-strategy.js';

/** Several competing "nodes" on one lease backend, made fresh for each case. */
export interface CompetingConsumerStrategyFixture {
  /** The lease time every node of this fixture uses, in milliseconds; the kit scales its waits by it. */
  readonly leaseTimeMs: number;
  /** A new strategy instance (a "node") competing on the same backend as every other node of this fixture. */
  node(): CompetingConsumerStrategy | Promise<CompetingConsumerStrategy>;
  /** Deletes the lease of `subscriptionId` behind the strategies' backs, the way an operator would (not its tokens). */
  deleteLease(subscriptionId: string): Promise<void>;
  /** Called after every case, after the kit has shut down every node it made: close connections, drop keys. */
  teardown?(): void | Promise<void>;
}

/** Makes a fresh fixture for one case. */
export type CompetingConsumerStrategyFixtureFactory = () =>
  CompetingConsumerStrategyFixture | Promise<CompetingConsumerStrategyFixture>;

/** The suite-registration functions the kit needs; vitest's by default. */
export interface CompetingConsumerConformanceOptions {
  readonly describe?: (name: string, body: () => void) => void;
  readonly it?: (name: string, body: () => Promise<void>, timeoutMs?: number) => void;
}

interface CaseContext {
  readonly fixture: CompetingConsumerStrategyFixture;
  readonly node: () => Promise<CompetingConsumerStrategy>;
  /** Resolves once `predicate` holds; fails the case after many lease times. */
  readonly eventually: (what: string, predicate: () => boolean) => Promise<void>;
  readonly sleep: (ms: number) => Promise<void>;
}

/**
 * Registers a suite that checks a `CompetingConsumerStrategy` against the contract: one holder at a time, tokens
 * that start at 0 and only go up, refresh keeping the token, release versus unregister, listeners, `fencingToken`
 * with two local consumers, a lease deleted by hand, shutdown, bad input, and, when the strategy has it,
 * `raiseFencingTokenAbove` (the next token above the raised version, never lowering a counter). Waits are conditions polled within
 * many lease times, never timed assertions; a lease time of a few hundred milliseconds keeps the suite fast.
 */
export function describeCompetingConsumerStrategyConformance(
  name: string,
  factory: CompetingConsumerStrategyFixtureFactory,
  options: CompetingConsumerConformanceOptions = {},
): void {
  const describe = options.describe ?? vitestDescribe;
  const it = options.it ?? vitestIt;

  const test = (title: string, body: (context: CaseContext) => Promise<void>): void => {
    it(
      title,
      async () => {
        const fixture = await factory();
        const nodes: CompetingConsumerStrategy[] = [];
        const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
        const context: CaseContext = {
          fixture,
          node: async () => {
            const node = await fixture.node();
            nodes.push(node);
            return node;
          },
          eventually: async (what, predicate) => {
            const deadline = Date.now() + fixture.leaseTimeMs * 20 + 5_000;
            while (!predicate()) {
              if (Date.now() > deadline) {
                throw new Error(`Timed out waiting until ${what}.`);
              }
              await sleep(Math.max(5, Math.floor(fixture.leaseTimeMs / 20)));
            }
          },
          sleep,
        };
        try {
          await body(context);
        } finally {
          await Promise.allSettled(nodes.map((node) => node.shutdown()));
          await fixture.teardown?.();
        }
      },
      60_000,
    );
  };

  describe(`${name}: CompetingConsumerStrategy conformance`, () => {
    test('the first consumer registered holds the lease at once, with token 0 on a fresh subscription', async ({
      node,
    }) => {
      const first = await node();
      expect(await first.register('orders', 'node-a')).toBe(true);
      expect(first.hasLock('orders', 'node-a')).toBe(true);
      expect(first.fencingToken('orders')).toBe(0n);
    });

    test('a second node waits: register resolves false, no lock, no token', async ({ node }) => {
      const first = await node();
      const second = await node();
      await first.register('orders', 'node-a');
      expect(await second.register('orders', 'node-b')).toBe(false);
      expect(second.hasLock('orders', 'node-b')).toBe(false);
      expect(second.fencingToken('orders')).toBeUndefined();
    });

    test('two subscriptions are leased independently', async ({ node }) => {
      const first = await node();
      const second = await node();
      expect(await first.register('orders', 'node-a')).toBe(true);
      expect(await second.register('payments', 'node-b')).toBe(true);
      expect(first.fencingToken('payments')).toBeUndefined();
      expect(second.fencingToken('payments')).toBe(0n);
    });

    test('a holder that keeps refreshing keeps its lease and its token over several lease times', async ({
      fixture,
      node,
      eventually,
      sleep,
    }) => {
      const first = await node();
      const second = await node();
      const grantedToSecond: string[] = [];
      second.onGranted((subscriptionId) => grantedToSecond.push(subscriptionId));
      await first.register('orders', 'node-a');
      await second.register('orders', 'node-b');
      await sleep(fixture.leaseTimeMs * 3);
      await eventually('the holder answers hasLock true', () => first.hasLock('orders', 'node-a'));
      expect(first.fencingToken('orders')).toBe(0n);
      expect(grantedToSecond).toEqual([]);
    });

    test('release: hasLock is false at once, another node takes over with a higher token, and the releaser stays a candidate', async ({
      node,
      eventually,
    }) => {
      const first = await node();
      const second = await node();
      await first.register('orders', 'node-a');
      await second.register('orders', 'node-b');
      const firstToken = first.fencingToken('orders');

      await first.release('orders', 'node-a');
      expect(first.hasLock('orders', 'node-a')).toBe(false);
      expect(first.fencingToken('orders')).toBeUndefined();
      await eventually('the second node holds the lease', () => second.hasLock('orders', 'node-b'));
      const secondToken = second.fencingToken('orders');
      expect(secondToken).toBeDefined();
      expect((secondToken ?? -1n) > (firstToken ?? 0n)).toBe(true);

      // Unregistered, not released: the second node must not take the lease back, so only the first one can.
      await second.unregister('orders', 'node-b');
      await eventually('the released first node takes the lease back', () => first.hasLock('orders', 'node-a'));
      expect((first.fencingToken('orders') ?? -1n) > (secondToken ?? 0n)).toBe(true);
    });

    test('a consumer that releases and is alone gets the lease back with a new token', async ({ node, eventually }) => {
      const only = await node();
      await only.register('orders', 'node-a');
      await only.release('orders', 'node-a');
      await eventually('the lease comes back', () => only.hasLock('orders', 'node-a'));
      expect(only.fencingToken('orders')).toBe(1n);
    });

    test('unregister keeps the consumer out until it registers again', async ({ fixture, node, eventually, sleep }) => {
      const first = await node();
      const granted: string[] = [];
      first.onGranted((_subscriptionId, subscriberId) => granted.push(subscriberId));
      await first.register('orders', 'node-a');
      await first.unregister('orders', 'node-a');
      expect(first.hasLock('orders', 'node-a')).toBe(false);
      expect(first.fencingToken('orders')).toBeUndefined();
      await sleep(fixture.leaseTimeMs * 2);
      expect(granted).toEqual(['node-a']);
      expect(first.hasLock('orders', 'node-a')).toBe(false);

      await first.register('orders', 'node-a');
      await eventually('the re-registered consumer holds the lease', () => first.hasLock('orders', 'node-a'));
      expect(first.fencingToken('orders')).toBe(1n);
    });

    test('onGranted and onProhibited report each hand-over; the returned function stops a listener', async ({
      node,
      eventually,
    }) => {
      const first = await node();
      const second = await node();
      const events: string[] = [];
      first.onGranted((subscriptionId, subscriberId) => events.push(`granted ${subscriptionId} ${subscriberId}`));
      first.onProhibited((subscriptionId, subscriberId) => events.push(`prohibited ${subscriptionId} ${subscriberId}`));
      const secondEvents: string[] = [];
      const stop = second.onGranted((_subscriptionId, subscriberId) => secondEvents.push(subscriberId));
      await first.register('orders', 'node-a');
      await second.register('orders', 'node-b');
      await first.release('orders', 'node-a');
      await eventually('the second node is granted', () => secondEvents.length === 1);
      stop();
      await second.unregister('orders', 'node-b');
      await eventually('the first node is granted again', () => first.hasLock('orders', 'node-a'));
      expect(events).toEqual(['granted orders node-a', 'prohibited orders node-a', 'granted orders node-a']);
      expect(secondEvents).toEqual(['node-b']);
    });

    test('fencingToken is undefined while two consumers of one instance are registered for the id', async ({
      node,
    }) => {
      const shared = await node();
      expect(await shared.register('orders', 'consumer-1')).toBe(true);
      expect(shared.fencingToken('orders')).toBe(0n);
      expect(await shared.register('orders', 'consumer-2')).toBe(false);
      expect(shared.fencingToken('orders')).toBeUndefined();
      await shared.unregister('orders', 'consumer-2');
      expect(shared.fencingToken('orders')).toBe(0n);
    });

    test('tokens strictly increase over many hand-overs between three nodes', async ({ node, eventually }) => {
      const nodes = [await node(), await node(), await node()];
      const tokens: bigint[] = [];
      nodes.forEach((strategy) => {
        strategy.onGranted((subscriptionId) => {
          const token = strategy.fencingToken(subscriptionId);
          if (token !== undefined) {
            tokens.push(token);
          }
        });
      });
      for (const [index, strategy] of nodes.entries()) {
        await strategy.register('orders', `node-${index}`);
      }
      for (let handOver = 0; handOver < 5; handOver += 1) {
        const holder = nodes.findIndex((strategy, index) => strategy.hasLock('orders', `node-${index}`));
        expect(holder).toBeGreaterThanOrEqual(0);
        const grantsBefore = tokens.length;
        await nodes[holder]?.release('orders', `node-${holder}`);
        await eventually('another grant', () => tokens.length > grantsBefore);
        await eventually('the new holder answers hasLock', () =>
          nodes.some((strategy, index) => strategy.hasLock('orders', `node-${index}`)),
        );
      }
      expect(tokens.length).toBe(6);
      for (let index = 1; index < tokens.length; index += 1) {
        expect((tokens[index] ?? -1n) > (tokens[index - 1] ?? 0n)).toBe(true);
      }
    });

    test('a lease deleted by hand moves on with a higher token, and the old holder is told', async ({
      fixture,
      node,
      eventually,
    }) => {
      const first = await node();
      const second = await node();
      const prohibited: string[] = [];
      first.onProhibited((_subscriptionId, subscriberId) => prohibited.push(subscriberId));
      await first.register('orders', 'node-a');
      const firstToken = first.fencingToken('orders') ?? -1n;
      await fixture.deleteLease('orders');
      await second.register('orders', 'node-b');
      await eventually('the second node holds the lease', () => second.hasLock('orders', 'node-b'));
      expect((second.fencingToken('orders') ?? -1n) > firstToken).toBe(true);
      await eventually('the first node is told it lost the lease', () => prohibited.length === 1);
      expect(first.hasLock('orders', 'node-a')).toBe(false);
    });

    test('shutdown gives the leases up, so another node takes over', async ({ node, eventually }) => {
      const first = await node();
      const second = await node();
      await first.register('orders', 'node-a');
      await second.register('orders', 'node-b');
      await first.shutdown();
      expect(first.hasLock('orders', 'node-a')).toBe(false);
      await eventually('the second node holds the lease', () => second.hasLock('orders', 'node-b'));
      expect(second.fencingToken('orders')).toBe(1n);
      await expect(first.register('orders', 'node-a')).rejects.toThrow(/shut down/u);
    });

    describe('raiseFencingTokenAbove', () => {
      /** Runs `body` when the strategy has the optional method; a strategy without it must have nothing there. */
      const raising = (title: string, body: (context: CaseContext) => Promise<void>): void => {
        test(title, async (context) => {
          const probe = await context.node();
          if (typeof probe.raiseFencingTokenAbove === 'function') {
            await body(context);
          } else {
            expect(typeof probe.raiseFencingTokenAbove).toBe('undefined');
          }
        });
      };

      raising(
        'the next token minted is above the raised version, and a lease already held keeps its token',
        async ({ node, eventually }) => {
          const first = await node();
          const second = await node();
          await first.register('orders', 'node-a');
          await second.register('orders', 'node-b');
          await first.raiseFencingTokenAbove?.('orders', 41n);
          expect(first.hasLock('orders', 'node-a')).toBe(true);
          expect(first.fencingToken('orders')).toBe(0n);
          await first.release('orders', 'node-a');
          await eventually('the second node holds the lease', () => second.hasLock('orders', 'node-b'));
          expect(second.fencingToken('orders')).toBe(42n);
        },
      );

      raising('never lowers a counter: a raise below the last token changes nothing', async ({ node, eventually }) => {
        const only = await node();
        await only.raiseFencingTokenAbove?.('orders', 9n);
        expect(await only.register('orders', 'node-a')).toBe(true);
        expect(only.fencingToken('orders')).toBe(10n);
        await only.raiseFencingTokenAbove?.('orders', 3n);
        await only.raiseFencingTokenAbove?.('orders', 10n);
        await only.release('orders', 'node-a');
        await eventually('the lease comes back', () => only.hasLock('orders', 'node-a'));
        expect(only.fencingToken('orders')).toBe(11n);
      });

      raising('raises exactly beyond 2**53, and leaves other ids alone', async ({ node }) => {
        const first = await node();
        await first.raiseFencingTokenAbove?.('orders', 2n ** 53n + 1n);
        expect(await first.register('orders', 'node-a')).toBe(true);
        expect(first.fencingToken('orders')).toBe(2n ** 53n + 2n);
        expect(await first.register('payments', 'node-a')).toBe(true);
        expect(first.fencingToken('payments')).toBe(0n);
      });

      raising('refuses a bad id or version with a TypeError and raises nothing', async ({ node }) => {
        const strategy = await node();
        for (const [id, version] of [
          ['', 5n],
          [42, 5n],
          ['orders\uD800', 5n],
          ['orders', -1n],
          ['orders', 5],
          ['orders', '5'],
        ] as const) {
          await expect(strategy.raiseFencingTokenAbove?.(untyped(id), untyped(version))).rejects.toThrow(TypeError);
        }
        expect(await strategy.register('orders', 'node-a')).toBe(true);
        expect(strategy.fencingToken('orders')).toBe(0n);
      });
    });

    test('bad ids are refused with a TypeError and register nothing', async ({ node }) => {
      const strategy = await node();
      await expect(strategy.register(untyped(42), 'node-a')).rejects.toThrow(TypeError);
      await expect(strategy.register('orders', untyped(undefined))).rejects.toThrow(TypeError);
      await expect(strategy.register('', 'node-a')).rejects.toThrow(TypeError);
      await expect(strategy.register('orders\uDC00', 'node-a')).rejects.toThrow(TypeError);
      await expect(strategy.register('orders', 'node-\uD800')).rejects.toThrow(TypeError);
      expect(strategy.fencingToken('42')).toBeUndefined();
      expect(await strategy.register('orders', 'node-a')).toBe(true);
      expect(strategy.fencingToken('orders')).toBe(0n);
    });
  });
}

/** Deliberately defeats the type checker: these cases model untyped JavaScript callers. */
function untyped(value: unknown): never {
  return value as never;
}
