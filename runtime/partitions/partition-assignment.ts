import { murmur2 } from './partition-hash.js';

/** A live member as the assignment sees it: its node id and the partitions it reported holding. */
export interface AssignmentMember {
  readonly nodeId: string;
  readonly owned: readonly number[];
}

/**
 * The target owner of each of `partitions` partitions among `members` (at least one), indexed by partition: sticky
 * bounded-load rendezvous hashing (ADR 1201). Every node count is ⌊P/N⌋ or ⌈P/N⌉; the extra partitions go to the
 * members holding the most. A partition stays with the member that holds it unless that member holds more than its
 * count, when it keeps those of highest rendezvous score; the rest go, best score first, to members below their
 * count. So the target depends only on the members and what they hold (not on their order), and one join or leave
 * moves only what it must. A partition claimed twice counts for the claimant of higher score.
 */
export function assignPartitions(partitions: number, members: readonly AssignmentMember[]): string[] {
  const nodes = [...members].sort((a, b) => compareIds(a.nodeId, b.nodeId));
  if (nodes.length === 0 || nodes.some((node, index) => node.nodeId === nodes[index + 1]?.nodeId)) {
    throw new RangeError('assignPartitions needs at least one member, each node id once.');
  }
  const owners: (string | undefined)[] = new Array<undefined>(partitions).fill(undefined);
  for (const { nodeId, owned } of nodes) {
    for (const partition of owned) {
      const other = owners[partition];
      if (
        Number.isInteger(partition) &&
        partition >= 0 &&
        partition < partitions &&
        (other === undefined || score(nodeId, partition) > score(other, partition))
      ) {
        owners[partition] = nodeId;
      }
    }
  }
  const held = new Map(nodes.map((node) => [node.nodeId, [] as number[]]));
  owners.forEach((owner, partition) => owner !== undefined && held.get(owner)?.push(partition));
  const least = Math.floor(partitions / nodes.length);
  // Holdings clamped to [least, least + 1] rank the members for the extra partitions (ties by node id: a stable
  // sort), so the rank holds while hand-overs are under way, however far each has got.
  const rank = (nodeId: string): number => Math.min(Math.max(held.get(nodeId)?.length ?? 0, least), least + 1);
  const ranked = nodes.map((node) => node.nodeId).sort((a, b) => rank(b) - rank(a));
  const room = new Map<string, number>();
  ranked.forEach((nodeId, index) => {
    const count = least + (index < partitions % nodes.length ? 1 : 0);
    const kept = (held.get(nodeId) ?? []).sort((a, b) => score(nodeId, b) - score(nodeId, a));
    for (const partition of kept.slice(count)) {
      owners[partition] = undefined;
    }
    room.set(nodeId, Math.max(0, count - kept.length));
  });
  const offers: [number, string, number][] = [];
  owners.forEach((owner, partition) => {
    for (const nodeId of owner === undefined ? ranked : []) {
      if ((room.get(nodeId) ?? 0) > 0) {
        offers.push([score(nodeId, partition), nodeId, partition]);
      }
    }
  });
  offers.sort((a, b) => b[0] - a[0] || compareIds(a[1], b[1]) || a[2] - b[2]);
  for (const [, nodeId, partition] of offers) {
    const left = room.get(nodeId) ?? 0;
    if (owners[partition] === undefined && left > 0) {
      owners[partition] = nodeId;
      room.set(nodeId, left - 1);
    }
  }
  return owners as string[];
}

/** The rendezvous score of a node for a partition: murmur2 of `"<partition>/<nodeId>"`, unsigned. */
function score(nodeId: string, partition: number): number {
  return murmur2(Buffer.from(`${partition}/${nodeId}`, 'utf8')) >>> 0;
}

/** Node ids compared by UTF-16 code units, as on every platform (no locale). */
function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
