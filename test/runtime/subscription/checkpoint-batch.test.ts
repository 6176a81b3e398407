import { describe, expect, it } from 'vitest';
import type { Checkpoint } from '../../../runtime/index.js';
import { CheckpointBatch } from '../../../runtime/subscription/checkpoint-batch.js';
import { checkpointEveryEvent } from '../../../runtime/subscription/checkpoint-policy.js';

/** A batch over writes the test answers by hand, with a lease the test takes away. */
function batchOverHeldWrites(): {
  batch: CheckpointBatch;
  written: Checkpoint[];
  answerWrite: () => void;
  loseLease: () => void;
  failures: unknown[];
} {
  const written: Checkpoint[] = [];
  const answers: (() => void)[] = [];
  const failures: unknown[] = [];
  let held = true;
  const batch = new CheckpointBatch({
    policy: checkpointEveryEvent,
    write: (position) => {
      written.push(position);
      return new Promise<void>((resolve) => answers.push(resolve));
    },
    stillHeld: () => held,
    onFailure: (error) => failures.push(error),
    notWritten: (position) => new Error(`${position} not written`),
  });
  return {
    batch,
    written,
    answerWrite: () => answers.shift()?.(),
    loseLease: () => {
      held = false;
    },
    failures,
  };
}

/** Lets queued promise callbacks run, so that a write queued by now has been sent. */
const writesSent = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('CheckpointBatch', () => {
  it('a write the policy asked for, whose turn comes after the run stopped and lost its lease, writes nothing and rejects nothing', async () => {
    const { batch, written, answerWrite, loseLease, failures } = batchOverHeldWrites();
    const first = batch.handled('1');
    await writesSent();
    const second = batch.handled('2');
    loseLease();
    batch.stop();
    answerWrite();
    await expect(first).resolves.toBeUndefined();
    // Found stopped without the lease: the run ends for that reason already, so this is no failure of its own.
    await expect(second).resolves.toBeUndefined();
    expect(written).toEqual(['1']);
    expect(failures).toEqual([]);
  });

  it('an explicit flush in the same situation rejects: its caller asked for the position to be stored', async () => {
    const { batch, written, answerWrite, loseLease } = batchOverHeldWrites();
    const first = batch.handled('1');
    await writesSent();
    // Queued behind the first write; the position it will find pending is '2'.
    const flushed = batch.flush();
    void batch.handled('2').catch(() => undefined);
    loseLease();
    batch.stop();
    answerWrite();
    await first;
    await expect(flushed).rejects.toThrow('2 not written');
    expect(written).toEqual(['1']);
  });

  it('while the lease is still held, a stopped run writes what the policy asked for', async () => {
    const { batch, written, answerWrite } = batchOverHeldWrites();
    const first = batch.handled('1');
    await writesSent();
    const second = batch.handled('2');
    batch.stop();
    answerWrite();
    await first;
    await writesSent();
    answerWrite();
    await expect(second).resolves.toBeUndefined();
    expect(written).toEqual(['1', '2']);
  });
});
