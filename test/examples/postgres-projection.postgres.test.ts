import { describe, expect, it } from 'vitest';
import { runZombieDemo } from '../../examples/postgres-projection/zombie-demo.js';
import { postgresForThisFile } from '../support/postgres/index.js';

const postgres = postgresForThisFile();

describe('examples/postgres-projection', () => {
  it("rolls the zombie's projection row back with its refused checkpoint; the new holder's rows and checkpoint stay", async () => {
    const lines: string[] = [];
    const outcome = await runZombieDemo(postgres.pool(), (line) => lines.push(line));
    expect(outcome.zombieToken).toBe(0n);
    expect(outcome.newHolderToken).toBe(1n);
    expect(outcome.refusal.storedVersion).toBe(1n);
    expect(outcome.checkpoint).toBe('6');
    expect(outcome.rows).toEqual([
      { order_id: 'order-1', position: '1', written_with_token: '0' },
      { order_id: 'order-2', position: '2', written_with_token: '0' },
      { order_id: 'order-3', position: '3', written_with_token: '0' },
      { order_id: 'order-4', position: '4', written_with_token: '1' },
      { order_id: 'order-5', position: '5', written_with_token: '1' },
      { order_id: 'order-6', position: '6', written_with_token: '1' },
    ]);
    expect(lines.some((line) => line.includes('REFUSED'))).toBe(true);
  });
});
