import { randomUUID } from 'node:crypto';
import { describe as vitestDescribe, expect, it as vitestIt, vi } from 'vitest';
import type { Member, Membership } from '../partitions/index.js';
import { untyped } from './untyped.js';

/** Several "nodes" on one membership store, made fresh for each case. */
export interface MembershipConformanceFixture {
  /** A new membership (a "node") on the same store as every other node of this fixture, all with one member time. */
  node(): Membership | Promise<Membership>;
  /** Called after every case, once the kit has left with every member it joined: close connections, drop keys. */
  teardown?(): void | Promise<void>;
}

/** Makes a fresh fixture for one case. */
export type MembershipConformanceFixtureFactory = () =>
  MembershipConformanceFixture | Promise<MembershipConformanceFixture>;

/** The suite-registration functions the kit needs; vitest's by default. */
export interface MembershipConformanceOptions {
  readonly describe?: (name: string, body: () => void) => void;
  readonly it?: (name: string, body: () => Promise<void>, timeoutMs?: number) => void;
}

interface CaseContext {
  /** Joins `nodeId` to this case's subscription (or `subscription`) through a new node of the fixture. */
  readonly join: (nodeId: string, partitions?: number, subscription?: string) => Promise<Member>;
  readonly node: () => Promise<Membership>;
  /** A subscription name of this case alone. */
  readonly subscription: string;
  readonly memberTimeMs: number;
  readonly sleep: (ms: number) => Promise<void>;
}

/**
 * Registers a suite that checks a `Membership` against the contract: joining, seeing the others and what they hold,
 * `memberForMs`, expiry after the member time and no sooner, leaving, joining again, a live node id and another
 * partition count refused (the count recorded for good), concurrent joins, the store's clock rather than this
 * process's, and bad input. A member time of a few hundred milliseconds keeps it fast.
 */
export function describeMembershipConformance(
  name: string,
  factory: MembershipConformanceFixtureFactory,
  options: MembershipConformanceOptions = {},
): void {
  const describe = options.describe ?? vitestDescribe;
  const it = options.it ?? vitestIt;
  const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

  const test = (title: string, body: (context: CaseContext) => Promise<void>): void => {
    it(
      title,
      async () => {
        const fixture = await factory();
        const members: Member[] = [];
        const node = async (): Promise<Membership> => fixture.node();
        const subscription = `membership-kit-${randomUUID()}`;
        const join = async (nodeId: string, partitions = 8, other = subscription): Promise<Member> => {
          const member = await (await node()).join(other, nodeId, partitions);
          members.push(member);
          return member;
        };
        try {
          await body({ join, node, subscription, memberTimeMs: (await node()).memberTimeMs, sleep });
        } finally {
          await Promise.allSettled(members.map((member) => member.leave()));
          await fixture.teardown?.();
        }
      },
      60_000,
    );
  };

  const seen = async (member: Member): Promise<[string, readonly number[]][]> =>
    (await member.heartbeat([])).members.map((live) => [live.nodeId, live.owned]);

  describe(`${name}: Membership conformance`, () => {
    test('a node that joins is live at once, owning nothing, and its first heartbeat renews it', async ({ join }) => {
      const member = await join('node-a');
      expect([member.nodeId, member.partitions]).toEqual(['node-a', 8]);
      const view = await member.heartbeat([]);
      expect(view.renewed).toBe(true);
      expect(view.members.map((live) => [live.nodeId, live.owned])).toEqual([['node-a', []]]);
    });

    test('every member sees the live ones in node id order, with what each reported at its last heartbeat', async ({
      join,
    }) => {
      const b = await join('node-b');
      const a = await join('node-a');
      await b.heartbeat([5, 1]);
      await a.heartbeat([0]);
      expect((await b.heartbeat([7, 1, 5])).members.map((live) => [live.nodeId, live.owned])).toEqual([
        ['node-a', [0]],
        ['node-b', [1, 5, 7]],
      ]);
      expect((await a.heartbeat([0, 2])).members.map((live) => live.owned)).toEqual([
        [0, 2],
        [1, 5, 7],
      ]);
    });

    test('memberForMs counts from the join by the store clock, and starts over at a new join', async ({
      join,
      memberTimeMs,
      sleep,
    }) => {
      const member = await join('node-a');
      const first = (await member.heartbeat([])).members[0]?.memberForMs ?? Number.NaN;
      await sleep(memberTimeMs / 2);
      const later = (await member.heartbeat([])).members[0]?.memberForMs ?? Number.NaN;
      expect(later - first).toBeGreaterThanOrEqual(memberTimeMs / 2 - 50);
      await member.leave();
      const again = await join('node-a');
      expect((await again.heartbeat([])).members[0]?.memberForMs).toBeLessThan(later);
    });

    test('a member that heartbeats stays live; one that stops drops out after its member time, not before, and renews nothing then', async ({
      join,
      memberTimeMs,
      sleep,
    }) => {
      const a = await join('node-a');
      const b = await join('node-b');
      const beatUntil = async (predicate: (nodes: string[]) => boolean, limitMs: number): Promise<number> => {
        const start = performance.now();
        for (;;) {
          const view = await a.heartbeat([]);
          expect(view.renewed).toBe(true);
          if (predicate(view.members.map((live) => live.nodeId)) || performance.now() - start > limitMs) {
            return performance.now() - start;
          }
          await sleep(memberTimeMs / 5);
        }
      };
      const stillLive = await beatUntil((nodes) => !nodes.includes('node-b'), memberTimeMs / 2);
      expect(stillLive, 'node-b was live for half its member time').toBeGreaterThan(memberTimeMs / 2);
      await beatUntil((nodes) => !nodes.includes('node-b'), memberTimeMs * 10 + 2_000);
      expect(await seen(a)).toEqual([['node-a', []]]);
      expect((await b.heartbeat([3])).renewed).toBe(false);
      expect(await seen(a)).toEqual([['node-a', []]]);
    });

    test('leave ends a membership at once: the others stop counting it, it renews nothing, a second leave changes nothing', async ({
      join,
    }) => {
      const a = await join('node-a');
      const b = await join('node-b');
      await b.leave();
      expect(await seen(a)).toEqual([['node-a', []]]);
      expect((await b.heartbeat([])).renewed).toBe(false);
      await b.leave();
      expect(await seen(a)).toEqual([['node-a', []]]);
    });

    test('a node that left joins again as a new member; the earlier join neither renews nor ends it', async ({
      join,
    }) => {
      const earlier = await join('node-a');
      await earlier.leave();
      const later = await join('node-a');
      expect((await earlier.heartbeat([1])).renewed).toBe(false);
      await earlier.leave();
      const view = await later.heartbeat([2]);
      expect(view.renewed).toBe(true);
      expect(view.members.map((live) => [live.nodeId, live.owned])).toEqual([['node-a', [2]]]);
    });

    test('a node id that is live already is refused, naming it and the subscription; the live member is untouched', async ({
      join,
      subscription,
    }) => {
      const live = await join('node-a');
      await live.heartbeat([4]);
      const error = await join('node-a').then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toContain('node-a');
      expect((error as Error).message).toContain(subscription);
      const view = await live.heartbeat([4]);
      expect(view.renewed).toBe(true);
      expect(view.members.map((member) => [member.nodeId, member.owned])).toEqual([['node-a', [4]]]);
    });

    test('another partition count is refused naming both counts, also once every member has left', async ({ join }) => {
      const a = await join('node-a', 8);
      const refusal = async (): Promise<string> =>
        join('node-b', 16).then(
          () => 'joined',
          (error: unknown) => (error instanceof Error ? error.message : String(error)),
        );
      expect(await refusal()).toMatch(/\b8\b[^]*\b16\b|\b16\b[^]*\b8\b/u);
      await a.leave();
      expect(await refusal()).toMatch(/\b8\b[^]*\b16\b|\b16\b[^]*\b8\b/u);
      expect((await (await join('node-b', 8)).heartbeat([])).renewed).toBe(true);
    });

    test('subscriptions are apart: one node id in two, each with its own partition count and members', async ({
      join,
      subscription,
    }) => {
      const first = await join('node-a', 8);
      const second = await join('node-a', 16, `${subscription}-2`);
      await join('node-b', 16, `${subscription}-2`);
      expect(await seen(first)).toEqual([['node-a', []]]);
      expect((await seen(second)).map(([nodeId]) => nodeId)).toEqual(['node-a', 'node-b']);
    });

    test('concurrent joins: one node id is accepted once, and one partition count is recorded', async ({
      join,
      subscription,
    }) => {
      const sameId = await Promise.allSettled([1, 2, 3, 4, 5].map(() => join('node-a')));
      expect(sameId.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
      const fresh = `${subscription}-race`;
      const race = await Promise.allSettled(
        [16, 32, 64, 128].map((count, index) => join(`node-${index}`, count, fresh)),
      );
      const accepted = new Set(
        race.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value.partitions] : [])),
      );
      expect(accepted.size).toBe(1);
    });

    test("expiry and memberForMs follow the store's clock, not this process's: Date.now an hour off changes nothing", async ({
      join,
      memberTimeMs,
      sleep,
    }) => {
      const observer = await join('observer');
      const realNow = Date.now.bind(Date);
      for (const offset of [3_600_000, -3_600_000]) {
        const nodeId = `skewed-${offset}`;
        const clock = vi.spyOn(Date, 'now').mockImplementation(() => realNow() + offset);
        const own = await join(nodeId)
          .then(async (skewed) => skewed.heartbeat([]))
          .finally(() => {
            clock.mockRestore();
          });
        expect(own.renewed).toBe(true);
        const live = (await observer.heartbeat([])).members.find((member) => member.nodeId === nodeId);
        expect(live?.memberForMs).toBeLessThan(memberTimeMs * 10 + 2_000);
        const deadline = performance.now() + memberTimeMs * 10 + 2_000;
        while ((await observer.heartbeat([])).members.some((member) => member.nodeId === nodeId)) {
          expect(performance.now(), `${nodeId} expires after its member time`).toBeLessThan(deadline);
          await sleep(memberTimeMs / 5);
        }
      }
    });

    test('bad input is refused before anything is sent', async ({ join, node, subscription }) => {
      const membership = await node();
      for (const partitions of [0, 3, 1.5, 8192, '8']) {
        await expect(membership.join(subscription, 'node-a', untyped(partitions))).rejects.toThrow(RangeError);
      }
      await expect(membership.join(subscription, '', 8)).rejects.toThrow(TypeError);
      await expect(membership.join('', 'node-a', 8)).rejects.toThrow(TypeError);
      const member = await join('node-a', 4);
      await member.heartbeat([1]);
      for (const owned of [[-1], [4], [1, 1], [0.5], 'x']) {
        await expect(member.heartbeat(untyped(owned))).rejects.toThrow(RangeError);
      }
      expect(await seen(await join('node-b', 4))).toEqual([
        ['node-a', [1]],
        ['node-b', []],
      ]);
    });
  });
}
