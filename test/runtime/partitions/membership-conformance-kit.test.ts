import { describe, expect, it } from 'vitest';
import { InMemoryMembership, InMemoryMembershipTable } from '../../../runtime/index.js';
import {
  StoredMembership,
  type JoinOutcome,
  type MemberKey,
  type MembershipView,
} from '../../../runtime/partitions/index.js';
import {
  describeMembershipConformance,
  type MembershipConformanceFixtureFactory,
} from '../../../runtime/testing/index.js';
import { failingCases, registeredCases } from '../../support/conformance/registered-cases.js';

const memberTimeMs = 300;

describeMembershipConformance('InMemoryMembership', () => {
  const table = new InMemoryMembershipTable();
  return { node: () => new InMemoryMembership({ table, memberTimeMs }) };
});

/** Keeps member times by the node's own clock (`Date.now`), as a store without a clock of its own would. */
const nodeClock = (): InMemoryMembershipTable => new InMemoryMembershipTable({ now: () => Date.now() });

/** Lets any join of a node id heartbeat and leave for it: a late leave of an earlier join ends the later one. */
class IgnoresWhichJoin extends InMemoryMembershipTable {
  readonly #latest = new Map<string, MemberKey>();

  override async join(member: MemberKey, partitions: number, ms: number): Promise<JoinOutcome> {
    this.#latest.set(`${member.subscription}\0${member.nodeId}`, member);
    return super.join(member, partitions, ms);
  }

  override async heartbeat(member: MemberKey, owned: readonly number[], ms: number): Promise<MembershipView> {
    return super.heartbeat(this.#latest.get(`${member.subscription}\0${member.nodeId}`) ?? member, owned, ms);
  }

  override async leave(member: MemberKey): Promise<void> {
    await super.leave(this.#latest.get(`${member.subscription}\0${member.nodeId}`) ?? member);
  }
}

/** Answers a join of a live node id as if it had joined. */
class AcceptsLiveNodeIds extends InMemoryMembershipTable {
  override async join(member: MemberKey, partitions: number, ms: number): Promise<JoinOutcome> {
    const outcome = await super.join(member, partitions, ms);
    return 'expiresInMs' in outcome ? { joined: true } : outcome;
  }
}

/** Expires members after a quarter of their member time. */
class ExpiresEarly extends InMemoryMembershipTable {
  override async join(member: MemberKey, partitions: number, ms: number): Promise<JoinOutcome> {
    return super.join(member, partitions, ms / 4);
  }

  override async heartbeat(member: MemberKey, owned: readonly number[], ms: number): Promise<MembershipView> {
    return super.heartbeat(member, owned, ms / 4);
  }
}

async function failingCasesOf(table: () => InMemoryMembershipTable): Promise<string[]> {
  const factory: MembershipConformanceFixtureFactory = () => {
    const shared = table();
    return { node: () => new StoredMembership(shared, { memberTimeMs }) };
  };
  return failingCases(
    registeredCases((recorder) => {
      describeMembershipConformance('probe', factory, recorder);
    }),
  );
}

describe('the membership conformance kit', () => {
  it('passes the in-memory table', async () => {
    expect(await failingCasesOf(() => new InMemoryMembershipTable())).toEqual([]);
  });

  it('catches a membership judged on the node’s clock', async () => {
    expect(await failingCasesOf(nodeClock)).toEqual([
      "expiry and memberForMs follow the store's clock, not this process's: Date.now an hour off changes nothing",
    ]);
  });

  it('catches a membership that lets one join heartbeat and leave for another', async () => {
    expect(await failingCasesOf(() => new IgnoresWhichJoin())).toContain(
      'a node that left joins again as a new member; the earlier join neither renews nor ends it',
    );
  });

  it('catches a membership that accepts a node id that is live already', async () => {
    expect(await failingCasesOf(() => new AcceptsLiveNodeIds())).toEqual([
      'a node id that is live already is refused, naming it and the subscription; the live member is untouched',
      'concurrent joins: one node id is accepted once, and one partition count is recorded',
    ]);
  });

  it('catches a membership that expires members before their member time', async () => {
    expect(await failingCasesOf(() => new ExpiresEarly())).toContain(
      'a member that heartbeats stays live; one that stops drops out after its member time, not before, and renews nothing then',
    );
  });
});
