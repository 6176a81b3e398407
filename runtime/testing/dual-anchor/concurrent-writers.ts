import { expect } from 'vitest';
import type { DualAnchorCheckpoint } from '../../dual-anchor/index.js';
import { type SuiteRegistrar, type CaseRegistrar } from './fixtures.js';

const sequenceBase = Date.UTC(2024, 0, 1);

/** The lost-update trap: two writers of the two anchors never bring back a stale value of the other's anchor. */
export function describeConcurrentAnchorWriters(describe: SuiteRegistrar, test: CaseRegistrar, writes: number): void {
  describe('concurrent anchor writers', () => {
    test(`two writers, ${writes} interleaved saveSeen and saveProcessed each, never bring back a stale value of the other anchor`, async (store) => {
      const acknowledged = { seen: -1, processed: -1 };
      const violations: string[] = [];
      const check = (record: DualAnchorCheckpoint | undefined, floor: typeof acknowledged, when: string): void => {
        for (const anchor of ['seen', 'processed'] as const) {
          const { sequence, paired } = anchorSequence(record, anchor);
          if (sequence < floor[anchor]) {
            violations.push(
              `${when}: the ${anchor} anchor read ${sequence} after ${floor[anchor]} was acknowledged (a stale value brought back)`,
            );
          }
          if (!paired) {
            violations.push(`${when}: the ${anchor} token and timestamp do not belong together`);
          }
        }
      };
      const run = { active: true };
      const reader = (async () => {
        while (run.active) {
          const floor = { ...acknowledged };
          check(await store.findByStreamName('contended'), floor, 'a read during the writes');
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
      })();
      const writer = async (anchor: 'seen' | 'processed'): Promise<void> => {
        for (let sequence = 0; sequence < writes; sequence += 1) {
          const token = { anchor, sequence };
          const at = new Date(sequenceBase + sequence);
          await (anchor === 'seen'
            ? store.saveSeen('contended', token, at)
            : store.saveProcessed('contended', token, at));
          acknowledged[anchor] = sequence;
        }
      };
      try {
        await Promise.all([writer('seen'), writer('processed')]);
      } finally {
        run.active = false;
        await reader;
      }
      check(await store.findByStreamName('contended'), acknowledged, 'the read after both writers finished');
      expect(violations.slice(0, 5)).toEqual([]);
      const final = await store.findByStreamName('contended');
      expect(final?.lastSeenToken).toEqual({ anchor: 'seen', sequence: writes - 1 });
      expect(final?.lastProcessedToken).toEqual({ anchor: 'processed', sequence: writes - 1 });
    }, 120_000);
  });
}

/** The torn-write trap: no reader sees an anchor without the heartbeat written with it. */
export function describeAnchorWithHeartbeat(describe: SuiteRegistrar, test: CaseRegistrar): void {
  describe('an anchor and its heartbeat land together', () => {
    for (const anchor of ['seen', 'processed'] as const) {
      test(`no reader ever sees a ${anchor} anchor without the heartbeat written with it`, async (store) => {
        const violations: string[] = [];
        const run = { active: true };
        const reader = async (): Promise<void> => {
          while (run.active) {
            const record = await store.findByStreamName('confirmed');
            const { sequence, paired } = anchorSequence(record, anchor);
            const heartbeat = record?.lastHeartbeatTimestamp?.getTime() ?? null;
            const expected = sequence === -1 ? null : sequenceBase + sequence;
            if (!paired || heartbeat !== expected) {
              violations.push(
                `read ${anchor} anchor ${sequence} with heartbeat ${heartbeat === null ? 'null' : heartbeat - sequenceBase}`,
              );
            }
            await new Promise<void>((resolve) => setImmediate(resolve));
          }
        };
        const readers = [reader(), reader()];
        try {
          for (let sequence = 0; sequence < 200; sequence += 1) {
            const token = { anchor, sequence };
            const at = new Date(sequenceBase + sequence);
            await (anchor === 'seen'
              ? store.saveSeen('confirmed', token, at, at)
              : store.saveProcessed('confirmed', token, at, at));
          }
        } finally {
          run.active = false;
          await Promise.all(readers);
        }
        expect(violations.slice(0, 5)).toEqual([]);
        expect(await store.findByStreamName('confirmed')).toMatchObject({
          lastHeartbeatTimestamp: new Date(sequenceBase + 199),
        });
      }, 60_000);
    }
  });
}

/**
 * The sequence number of an anchor written by the concurrency cases (`-1` when none is stored), and whether its
 * timestamp is the one written with that token.
 */
function anchorSequence(
  record: DualAnchorCheckpoint | undefined,
  anchor: 'seen' | 'processed',
): { readonly sequence: number; readonly paired: boolean } {
  const token = anchor === 'seen' ? record?.lastSeenToken : record?.lastProcessedToken;
  const timestamp = anchor === 'seen' ? record?.lastSeenTimestamp : record?.lastProcessedTimestamp;
  if (token === undefined || token === null) {
    return { sequence: -1, paired: timestamp === undefined || timestamp === null };
  }
  const sequence = (token as { sequence?: unknown }).sequence;
  if (typeof sequence !== 'number') {
    return { sequence: -1, paired: false };
  }
  return { sequence, paired: timestamp?.getTime() === sequenceBase + sequence };
}
