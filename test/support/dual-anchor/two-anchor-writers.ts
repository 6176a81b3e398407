import { expect } from 'vitest';
import { CheckpointWriteCondition } from '../../../runtime/index.js';
import { type DualAnchorCheckpointStore } from '../../../runtime/dual-anchor-entry.js';

/** Three stores on one record, each over its own connection or pool: one writer of each anchor and a reader. */
export interface TwoAnchorWriters {
  readonly seenWriter: DualAnchorCheckpointStore;
  readonly processedWriter: DualAnchorCheckpointStore;
  readonly reader: DualAnchorCheckpointStore;
  /** Writes per anchor writer. */
  readonly writes: number;
}

const at = new Date('2024-05-01T10:00:00.123Z');

/**
 * Runs the two anchor writers of the reference at once, over separate clients as separate processes would (the seen
 * writer with its heartbeat, the processed writer fenced), while the reader checks that no acknowledged write of
 * either anchor is ever undone; then both anchors must hold their last write.
 */
export async function expectAnchorWritersNeverUndoEachOther({
  seenWriter,
  processedWriter,
  reader,
  writes,
}: TwoAnchorWriters): Promise<void> {
  const acknowledged = { seen: -1, processed: -1 };
  const regressions: string[] = [];
  const run = { active: true };
  const sequenceOf = (token: unknown): number => (token as { sequence?: number } | null | undefined)?.sequence ?? -1;
  const reading = (async () => {
    while (run.active) {
      const floor = { ...acknowledged };
      const record = await reader.findByStreamName('shared');
      const seen = sequenceOf(record?.lastSeenToken);
      const processed = sequenceOf(record?.lastProcessedToken);
      if (seen < floor.seen || processed < floor.processed) {
        regressions.push(`read seen ${seen} / processed ${processed} after ${floor.seen} / ${floor.processed}`);
      }
    }
  })();
  await Promise.all([
    (async () => {
      for (let sequence = 0; sequence < writes; sequence += 1) {
        await seenWriter.saveSeen('shared', { sequence }, at, at);
        acknowledged.seen = sequence;
      }
    })(),
    (async () => {
      for (let sequence = 0; sequence < writes; sequence += 1) {
        await processedWriter.saveProcessed(
          'shared',
          { sequence },
          at,
          undefined,
          CheckpointWriteCondition.notOlderThan(1),
        );
        acknowledged.processed = sequence;
      }
    })(),
  ]).finally(() => {
    run.active = false;
  });
  await reading;
  expect(regressions.slice(0, 5)).toEqual([]);
  expect(await reader.findByStreamName('shared')).toMatchObject({
    lastSeenToken: { sequence: writes - 1 },
    lastProcessedToken: { sequence: writes - 1 },
  });
}
