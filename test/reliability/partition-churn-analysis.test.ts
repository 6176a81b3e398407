import { describe, expect, it } from 'vitest';
import { analyseChurn, type ChurnHandled, type ChurnSample } from '../../bench/soak/partition-churn-analysis.js';

const handled = (partition: number, position: number, token: bigint, sentAt: number, at: number): ChurnHandled => ({
  nodeId: `node-${token}`,
  partition,
  position,
  token,
  sentAt,
  at,
});
const sample = (at: number, checkpoints: number[], leased: boolean[]): ChurnSample => ({ at, checkpoints, leased });

describe('the partition churn checker', () => {
  it('counts nothing in a clean history: hand-overs in order, checkpoints forward, short unowned stretches', () => {
    expect(
      analyseChurn(
        [handled(0, 1, 0n, 0, 5), handled(1, 2, 0n, 1, 6), handled(0, 3, 1n, 100, 105), handled(0, 1, 1n, 90, 95)],
        [sample(0, [0, 0], [true, true]), sample(25, [1, 2], [false, true]), sample(600, [3, 2], [true, true])],
        [1, 2, 3],
        1_000,
      ),
    ).toEqual({
      checkpointBackward: 0,
      notHandled: 0,
      overlappingAccepts: 0,
      unownedTooLong: 0,
      longestUnownedMs: 575,
    });
  });

  it('counts each anomaly where it happens', () => {
    expect(
      analyseChurn(
        [
          handled(0, 1, 2n, 0, 10),
          // Sent after token 2's write was accepted, and accepted all the same: a zombie let through.
          handled(0, 2, 1n, 20, 30),
          // Token 1 sent before token 2's acceptance came back: overlapping in flight, not counted.
          handled(1, 3, 1n, 5, 15),
          handled(1, 4, 2n, 6, 12),
        ],
        [sample(0, [5, 0], [true, false]), sample(25, [4, 0], [true, false]), sample(5_000, [6, 1], [true, true])],
        [1, 2, 3, 4, 5, 6],
        1_000,
      ),
    ).toEqual({
      checkpointBackward: 1,
      notHandled: 2,
      overlappingAccepts: 1,
      unownedTooLong: 1,
      longestUnownedMs: 5_000,
    });
  });
});
