import { describe, expect, it } from 'vitest';
import { CheckpointWriteConditionNotFulfilledError } from '../../runtime/index.js';
import { runFenceYourOwnWritesDemo } from '../../examples/fence-your-own-writes/zombie-demo.js';
import { useSharedRedis } from '../support/redis/index.js';

const redis = useSharedRedis();

describe('examples/fence-your-own-writes', () => {
  it("refuses the frozen node's late write of the balances, stamped with its old token; the new holder's balances stay", async () => {
    const lines: string[] = [];
    const outcome = await runFenceYourOwnWritesDemo(
      () => redis.connect(),
      (line) => lines.push(line),
    );
    expect(outcome.newHolderToken).toBeGreaterThan(outcome.zombieToken);
    expect(outcome.refusal).toBeInstanceOf(CheckpointWriteConditionNotFulfilledError);
    expect(outcome.refusal.condition).toMatchObject({ kind: 'notOlderThan', version: outcome.zombieToken });
    expect(outcome.refusal.storedVersion).toBe(outcome.newHolderToken);
    expect(outcome.staleState.position).toBe(10);
    expect(outcome.balances).toEqual(outcome.expected);
    expect(outcome.balances.position).toBe(29);
    expect(outcome.checkpoint).toBe('29');
    expect(lines.filter((line) => line.includes('REFUSED'))).toHaveLength(1);
    expect(lines.some((line) => line.startsWith('[A] run ended: CheckpointWriteConditionNotFulfilledError'))).toBe(
      true,
    );
  });
});
