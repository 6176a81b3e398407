import { describe as vitestDescribe, it as vitestIt } from 'vitest';
import type { DualAnchorCheckpointStore } from '../dual-anchor/index.js';
import { describeBadInput } from './dual-anchor/bad-input.js';
import { describeAnchorWithHeartbeat, describeConcurrentAnchorWriters } from './dual-anchor/concurrent-writers.js';
import { describeFencing, describePersistingNothing } from './dual-anchor/fencing.js';
import { describeBrandNewStreams, describeFieldIsolation } from './dual-anchor/partial-writes.js';
import { describeResetAfterHistoryLost } from './dual-anchor/reset-after-history-lost.js';
import { describeNullPatterns, describeRoundTrips } from './dual-anchor/round-trips.js';

/** The suite-registration functions and knobs of {@link describeDualAnchorCheckpointStoreConformance}. */
export interface DualAnchorConformanceOptions {
  readonly describe?: (name: string, body: () => void) => void;
  readonly it?: (name: string, body: () => Promise<void>, timeoutMs?: number) => void;
  /** Called after every case with the store the factory made: close connections, drop keys. */
  readonly teardown?: (store: DualAnchorCheckpointStore) => void | Promise<void>;
  /**
   * False for a store that deliberately persists nothing, such as `noOpDualAnchorCheckpointStore()`: the kit then
   * checks that every valid write resolves, that nothing is ever found, that bad input is still a `TypeError`, and
   * that conditions other than `any()` are refused; the cases that read back what was written are left out. True by
   * default.
   */
  readonly persists?: boolean;
  /** Writes per anchor writer in the concurrent-writers case; 1,000 by default. */
  readonly interleavedWrites?: number;
}

/** Makes a fresh, empty store for one case. */
export type DualAnchorCheckpointStoreFactory = () => DualAnchorCheckpointStore | Promise<DualAnchorCheckpointStore>;

/**
 * Registers a suite that checks a `DualAnchorCheckpointStore` against the contract: upsert, find and delete; every
 * partial write persisting on a brand-new stream; field isolation; two concurrent anchor writers that must never bring
 * back a stale value of the other anchor; an anchor and its heartbeat landing together; every branch of
 * `resetAfterHistoryLost`, a processed anchor re-acquired concurrently included; every null pattern; bad input; and
 * fencing, or the refusal of every condition but `any()` for a store that answers `evaluatesWriteConditions()` false.
 * Each trap the reference names fails a case here; doc/dual-anchor.md lists which.
 */
export function describeDualAnchorCheckpointStoreConformance(
  name: string,
  factory: DualAnchorCheckpointStoreFactory,
  options: DualAnchorConformanceOptions = {},
): void {
  const describe = options.describe ?? vitestDescribe;
  const it = options.it ?? vitestIt;
  const interleavedWrites = options.interleavedWrites ?? 1_000;

  const test = (title: string, body: (store: DualAnchorCheckpointStore) => Promise<void>, timeoutMs?: number): void => {
    it(
      title,
      async () => {
        const store = await factory();
        try {
          await body(store);
        } finally {
          await options.teardown?.(store);
        }
      },
      timeoutMs,
    );
  };

  describe(`${name}: DualAnchorCheckpointStore conformance`, () => {
    if (options.persists === false) {
      describePersistingNothing(describe, test);
    } else {
      describeRoundTrips(describe, test);
      describeBrandNewStreams(describe, test);
      describeFieldIsolation(describe, test);
      describeConcurrentAnchorWriters(describe, test, interleavedWrites);
      describeAnchorWithHeartbeat(describe, test);
      describeResetAfterHistoryLost(describe, test);
      describeNullPatterns(describe, test);
      describeFencing(describe, test);
    }
    describeBadInput(describe, test, options.persists !== false);
  });
}
