import { describe, expect, it } from 'vitest';
import { NoLeaseHeldError } from '../../runtime/index.js';
import { runDeposedNodeDemo } from '../../examples/deposed-node/deposed-node-demo.js';

describe('examples/deposed-node', () => {
  it("refuses node A before it notices (the storage) and after (its writer sends nothing); B's checkpoint stays", async () => {
    const lines: string[] = [];
    const outcome = await runDeposedNodeDemo((line) => lines.push(line));
    expect(outcome.tokenOfB).toBeGreaterThan(outcome.tokenOfA);
    expect(outcome.refusedByTheStorage).not.toBeInstanceOf(NoLeaseHeldError);
    expect(outcome.refusedByTheStorage.condition).toMatchObject({ kind: 'notOlderThan', version: outcome.tokenOfA });
    expect(outcome.refusedByTheStorage.storedVersion).toBe(outcome.tokenOfB);
    expect(outcome.refusedByTheWriter.message).toContain('this node holds no lease for it');
    expect({ checkpoint: outcome.checkpoint, version: outcome.version }).toEqual({
      checkpoint: '300',
      version: outcome.tokenOfB,
    });
    expect(lines.filter((line) => / REFUSED$| NOT SENT$/.test(line))).toHaveLength(2);
  });
});
