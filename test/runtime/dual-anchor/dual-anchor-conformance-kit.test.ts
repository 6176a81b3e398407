import { describe, expect, it } from 'vitest';
import { CheckpointWriteCondition, UnsupportedWriteConditionError } from '../../../runtime/index.js';
import {
  decodeDualAnchorCheckpoint,
  DualAnchorCheckpointStoreBase,
  DualAnchorWritePlan,
  emptyStoredDualAnchorFields,
  InMemoryDualAnchorCheckpointStore,
  noOpDualAnchorCheckpointStore,
  storedFieldsAfterReset,
  withReadModifyWriteDefaults,
  type DualAnchorCheckpoint,
  type DualAnchorCheckpointStore,
  type DualAnchorFieldWrite,
  type DualAnchorResetWrite,
  type DualAnchorToken,
  type MinimalDualAnchorCheckpointStore,
  type StoredDualAnchorFields,
} from '../../../runtime/dual-anchor-entry.js';
import {
  describeDualAnchorCheckpointStoreConformance,
  type DualAnchorCheckpointStoreFactory,
  type DualAnchorConformanceOptions,
} from '../../../runtime/testing/index.js';
import { failingCases, registeredCases } from '../../support/conformance/registered-cases.js';

type Condition = CheckpointWriteCondition;

function kitCases(
  factory: DualAnchorCheckpointStoreFactory,
  options: Pick<DualAnchorConformanceOptions, 'persists'> = {},
): Map<string, () => Promise<void>> {
  return registeredCases((recorder) => {
    describeDualAnchorCheckpointStoreConformance('probe', factory, { ...options, ...recorder });
  });
}

function failingKitCases(
  factory: DualAnchorCheckpointStoreFactory,
  options?: Pick<DualAnchorConformanceOptions, 'persists'>,
): Promise<string[]> {
  return failingCases(kitCases(factory, options));
}

const interleavedCase =
  'concurrent anchor writers > two writers, 1000 interleaved saveSeen and saveProcessed each, never bring back a stale value of the other anchor';
const reacquiredCase =
  'resetAfterHistoryLost > a processed anchor re-acquired concurrently with the reset survives (the read-then-write trap)';
const brandNewCases = [
  'saveSeen',
  'saveSeen with a heartbeat',
  'saveProcessed',
  'saveProcessed with a heartbeat',
  'saveHeartbeat',
  'resetAfterHistoryLost with a fresh token',
  'resetAfterHistoryLost without a fresh token',
].map(
  (write) =>
    `every partial write on a brand-new stream persists (the plain-UPDATE trap) > ${write} creates the record with its own fields, everything else null`,
);
const heartbeatCases = ['seen', 'processed'].map(
  (anchor) =>
    `an anchor and its heartbeat land together > no reader ever sees a ${anchor} anchor without the heartbeat written with it`,
);

/** What a network round trip gives other callers: a turn of the event loop. */
function roundTrip(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * The minimal store the reference's defaults are built on: whole records in a map, copied in and out with
 * `structuredClone`, no conditions (it refuses them). Correct in itself; the trap is what is built on top of it.
 */
class PlainMapStore implements MinimalDualAnchorCheckpointStore {
  readonly #records = new Map<string, DualAnchorCheckpoint>();

  async save(checkpoint: DualAnchorCheckpoint, condition?: Condition): Promise<void> {
    if (condition !== undefined && condition.kind !== 'any') {
      throw new UnsupportedWriteConditionError(condition);
    }
    this.#records.set(checkpoint.streamName, structuredClone(checkpoint));
  }

  async findByStreamName(streamName: string): Promise<DualAnchorCheckpoint | undefined> {
    const record = this.#records.get(streamName);
    return record === undefined ? undefined : structuredClone(record);
  }

  async delete(streamName: string): Promise<void> {
    this.#records.delete(streamName);
  }
}

/**
 * A correct store with targeted writes that evaluates no condition (it refuses them), written so that each broken
 * variant below changes one thing: each step's body runs synchronously, so it is atomic.
 */
class TargetedMapStore extends DualAnchorCheckpointStoreBase {
  protected readonly records = new Map<string, StoredDualAnchorFields>();

  evaluatesWriteConditions(): boolean {
    return false;
  }

  protected async writeFields(write: DualAnchorFieldWrite): Promise<void> {
    this.refuseConditions(write);
    this.put(write.streamName, { ...this.current(write.streamName), ...write.fields });
  }

  protected async writeReset(reset: DualAnchorResetWrite): Promise<void> {
    this.refuseConditions(reset);
    this.put(reset.streamName, storedFieldsAfterReset(this.current(reset.streamName), reset));
  }

  protected async readRecord(streamName: string): Promise<DualAnchorCheckpoint | undefined> {
    const stored = this.records.get(streamName);
    return stored === undefined ? undefined : decodeDualAnchorCheckpoint(streamName, stored);
  }

  protected async removeRecord(streamName: string): Promise<void> {
    this.records.delete(streamName);
  }

  protected current(streamName: string): StoredDualAnchorFields {
    return this.records.get(streamName) ?? emptyStoredDualAnchorFields;
  }

  protected put(streamName: string, fields: StoredDualAnchorFields): void {
    this.records.set(streamName, fields);
  }

  protected refuseConditions(write: DualAnchorFieldWrite | DualAnchorResetWrite): void {
    if (write.condition.kind !== 'any') {
      throw new UnsupportedWriteConditionError(write.condition);
    }
  }
}

/** The plain-UPDATE trap: a partial write matches no record on a brand-new stream and silently persists nothing. */
class UpdateWithoutUpsertStore extends TargetedMapStore {
  override async save(checkpoint: DualAnchorCheckpoint, condition?: Condition): Promise<void> {
    const write = DualAnchorWritePlan.save(checkpoint, condition);
    this.refuseConditions(write);
    this.put(write.streamName, { ...emptyStoredDualAnchorFields, ...write.fields });
  }

  protected override async writeFields(write: DualAnchorFieldWrite): Promise<void> {
    if (this.records.has(write.streamName)) {
      await super.writeFields(write);
    }
  }

  protected override async writeReset(reset: DualAnchorResetWrite): Promise<void> {
    if (this.records.has(reset.streamName)) {
      await super.writeReset(reset);
    }
  }
}

/** The read-then-write guard: reads the processed token, decides in Node one round trip later, then writes. */
class ReadThenWriteGuardStore extends TargetedMapStore {
  protected override async writeReset(reset: DualAnchorResetWrite): Promise<void> {
    this.refuseConditions(reset);
    const dead = this.current(reset.streamName).lastProcessedToken === reset.expectedDeadProcessed;
    await roundTrip();
    this.put(reset.streamName, {
      ...this.current(reset.streamName),
      ...reset.fields,
      ...(dead ? { lastProcessedToken: null, lastProcessedTimestamp: null } : {}),
    });
  }
}

/** The anchor and its heartbeat in two awaited writes where one atomic write was required. */
class TwoStepHeartbeatStore extends TargetedMapStore {
  protected override async writeFields(write: DualAnchorFieldWrite): Promise<void> {
    const { lastHeartbeatTimestamp, ...anchor } = write.fields;
    const anchorWithHeartbeat =
      lastHeartbeatTimestamp !== undefined && ('lastSeenToken' in anchor || 'lastProcessedToken' in anchor);
    if (!anchorWithHeartbeat || 'metadata' in anchor) {
      await super.writeFields(write);
      return;
    }
    await super.writeFields({ ...write, fields: anchor });
    await roundTrip();
    await super.writeFields({ ...write, fields: { lastHeartbeatTimestamp } });
  }
}

/** A partial write that upserts the whole row from its own fields (every other column null): no field isolation. */
class WholeRowPartialWriteStore extends TargetedMapStore {
  protected override async writeFields(write: DualAnchorFieldWrite): Promise<void> {
    this.refuseConditions(write);
    this.put(write.streamName, { ...emptyStoredDualAnchorFields, ...write.fields });
  }
}

/** Compares the guard's JSON text as the caller wrote it, so object key order decides. */
class KeyOrderSensitiveGuardStore extends TargetedMapStore {
  override async resetAfterHistoryLost(
    streamName: string,
    freshSeenToken: DualAnchorToken | null,
    expectedDeadProcessed: DualAnchorToken | null,
    timestamp: Date,
    condition?: Condition,
  ): Promise<void> {
    const reset = DualAnchorWritePlan.resetAfterHistoryLost(
      streamName,
      freshSeenToken,
      expectedDeadProcessed,
      timestamp,
      condition,
    );
    const asWritten = expectedDeadProcessed === null ? null : JSON.stringify(expectedDeadProcessed);
    await this.writeReset({ ...reset, expectedDeadProcessed: asWritten });
  }
}

/** A reset without a fresh token that leaves the heartbeat: a confirmation of a position that no longer exists. */
class HeartbeatOutlivesSeenStore extends TargetedMapStore {
  protected override put(streamName: string, fields: StoredDualAnchorFields): void {
    const keptHeartbeat =
      fields.lastSeenToken === null && fields.lastHeartbeatTimestamp === null
        ? this.records.get(streamName)?.lastHeartbeatTimestamp
        : undefined;
    super.put(streamName, { ...fields, lastHeartbeatTimestamp: keptHeartbeat ?? fields.lastHeartbeatTimestamp });
  }
}

/** Keeps timestamps to the second, like a `timestamp(0)` column. */
class SecondPrecisionStore extends TargetedMapStore {
  protected override put(streamName: string, fields: StoredDualAnchorFields): void {
    const second = (millis: number | null): number | null => (millis === null ? null : millis - (millis % 1_000));
    super.put(streamName, {
      ...fields,
      lastSeenTimestamp: second(fields.lastSeenTimestamp),
      lastProcessedTimestamp: second(fields.lastProcessedTimestamp),
      lastHeartbeatTimestamp: second(fields.lastHeartbeatTimestamp),
    });
  }
}

/** Hands out the same record object every time, so a caller changing it changes what the next caller reads. */
class SharedRecordStore extends TargetedMapStore {
  readonly #handedOut = new Map<string, DualAnchorCheckpoint>();

  override async findByStreamName(streamName: string): Promise<DualAnchorCheckpoint | undefined> {
    const known = this.#handedOut.get(streamName);
    if (known !== undefined) {
      return known;
    }
    const found = await super.findByStreamName(streamName);
    if (found !== undefined) {
      this.#handedOut.set(streamName, found);
    }
    return found;
  }

  protected override put(streamName: string, fields: StoredDualAnchorFields): void {
    this.#handedOut.delete(streamName);
    super.put(streamName, fields);
  }
}

/** Writes a heartbeat for any stream name it is given, turning a number into a string. */
class UncheckedHeartbeatStore extends TargetedMapStore {
  override async saveHeartbeat(streamName: unknown, heartbeatTimestamp: Date): Promise<void> {
    const name = typeof streamName === 'string' ? streamName : JSON.stringify(streamName);
    this.put(name, { ...this.current(name), lastHeartbeatTimestamp: new Date(heartbeatTimestamp).getTime() });
  }
}

/** Answers evaluatesWriteConditions() false, yet writes past every condition. */
class SilentlyWritesConditionsStore extends TargetedMapStore {
  protected override refuseConditions(): void {
    // Claims no capability, then ignores the condition instead of refusing it: the trap this store stands for.
  }
}

/** Answers evaluatesWriteConditions() true, yet writes unconditionally: fencing silently off. */
class IgnoresConditionsStore extends InMemoryDualAnchorCheckpointStore {
  protected override writeFields(write: DualAnchorFieldWrite): Promise<void> {
    return super.writeFields({ ...write, condition: CheckpointWriteCondition.any() });
  }
}

/** Reads the condition's kind twice: once to check it, once to dispatch on it. */
class ReadsConditionTwiceStore extends InMemoryDualAnchorCheckpointStore {
  override async saveProcessed(
    streamName: string,
    token: DualAnchorToken,
    timestamp: Date,
    heartbeatTimestamp?: Date,
    condition?: Condition,
  ): Promise<void> {
    DualAnchorWritePlan.saveProcessed(streamName, token, timestamp, heartbeatTimestamp, condition);
    const dispatched = condition?.kind === 'any' ? CheckpointWriteCondition.any() : condition;
    await super.saveProcessed(streamName, token, timestamp, heartbeatTimestamp, dispatched);
  }
}

describe('the dual-anchor conformance kit', () => {
  it('registers a case for every part of the contract', () => {
    const names = [...kitCases(() => new InMemoryDualAnchorCheckpointStore()).keys()];
    expect(names.length).toBeGreaterThanOrEqual(200);
    for (const part of [
      'upsert, find and delete',
      'every partial write on a brand-new stream persists',
      'field isolation',
      'concurrent anchor writers',
      'an anchor and its heartbeat land together',
      'resetAfterHistoryLost',
      'null patterns',
      'bad input gets a TypeError and writes nothing',
      'fencing',
    ]) {
      expect(
        names.some((name) => name.includes(` > ${part}`)),
        part,
      ).toBe(true);
    }
  });

  it('passes InMemoryDualAnchorCheckpointStore', async () => {
    expect(await failingKitCases(() => new InMemoryDualAnchorCheckpointStore())).toEqual([]);
  });

  it('passes a store with targeted atomic writes that honestly evaluates no condition', async () => {
    expect(await failingKitCases(() => new TargetedMapStore())).toEqual([]);
  });

  it('fails withReadModifyWriteDefaults over a plain map on exactly the two races, and nothing else', async () => {
    expect(await failingKitCases(() => withReadModifyWriteDefaults(new PlainMapStore()))).toEqual([
      interleavedCase,
      reacquiredCase,
    ]);
  });

  it('fails withReadModifyWriteDefaults on the same two races even over a store whose save fences', async () => {
    expect(await failingKitCases(() => withReadModifyWriteDefaults(new InMemoryDualAnchorCheckpointStore()))).toEqual([
      interleavedCase,
      reacquiredCase,
    ]);
  });

  it('catches a partial write without upsert (the plain-UPDATE trap) on every partial operation', async () => {
    expect(await failingKitCases(() => new UpdateWithoutUpsertStore())).toEqual(expect.arrayContaining(brandNewCases));
  });

  it('catches a recovery guard evaluated as read-then-write', async () => {
    const failing = await failingKitCases(() => new ReadThenWriteGuardStore());
    expect(failing).toEqual([reacquiredCase]);
  });

  it('catches an anchor and its heartbeat written in two steps', async () => {
    expect(await failingKitCases(() => new TwoStepHeartbeatStore())).toEqual(heartbeatCases);
  });

  it('catches a partial write that replaces the whole row', async () => {
    const failing = await failingKitCases(() => new WholeRowPartialWriteStore());
    expect(failing).toContain(
      'field isolation: each partial write touches only its own fields > saveSeen over a full record changes exactly its fields',
    );
    expect(failing).toContain(
      'field isolation: each partial write touches only its own fields > a seen write never touches the processed pair, and a processed write never the seen pair',
    );
    expect(failing).toContain(interleavedCase);
  });

  it('catches a guard that compares JSON text with key order', async () => {
    expect(await failingKitCases(() => new KeyOrderSensitiveGuardStore())).toEqual([
      'resetAfterHistoryLost > compares the tokens as JSON values with object key order ignored',
    ]);
  });

  it('catches a reset without a fresh token that keeps the heartbeat', async () => {
    const failing = await failingKitCases(() => new HeartbeatOutlivesSeenStore());
    expect(failing).toContain(
      'resetAfterHistoryLost > a null fresh token clears the seen pair and the heartbeat, and the guard still decides the processed pair',
    );
  });

  it('catches timestamps that lose their milliseconds', async () => {
    const failing = await failingKitCases(() => new SecondPrecisionStore());
    expect(failing).toContain(
      'upsert, find and delete > round-trips timestamps to the millisecond, from year 1 to year 9999 and the epoch itself',
    );
  });

  it('catches a store that hands out a record it keeps', async () => {
    expect(await failingKitCases(() => new SharedRecordStore())).toContain(
      'upsert, find and delete > hands out copies: changing a record read back, or a value passed in, never changes the store',
    );
  });

  it('catches a store that writes bad input', async () => {
    expect(await failingKitCases(() => new UncheckedHeartbeatStore())).toEqual(
      expect.arrayContaining([
        'bad input gets a TypeError and writes nothing > rejects a number stream name to saveHeartbeat',
        'bad input gets a TypeError and writes nothing > rejects an ISO string timestamp to saveHeartbeat',
        'bad input gets a TypeError and writes nothing > a rejected call leaves an existing record and its version unchanged',
      ]),
    );
  });

  it('catches a store that claims no capability but still writes past a condition', async () => {
    const failing = await failingKitCases(() => new SilentlyWritesConditionsStore());
    expect(failing).toContain(
      'fencing (every write takes a trailing condition) > an older version is refused by every write, with the stored version, and changes nothing',
    );
  });

  it('catches a store that claims to fence but ignores the condition of one write', async () => {
    const failing = await failingKitCases(() => new IgnoresConditionsStore());
    expect(failing).toContain(
      'fencing (every write takes a trailing condition) > an older version is refused by every write, with the stored version, and changes nothing',
    );
    expect(failing).toContain(
      'fencing (every write takes a trailing condition) > one version per stream: a token stored through one anchor fences the other anchor and the heartbeat',
    );
  });

  it('catches a store that reads a condition twice', async () => {
    expect(await failingKitCases(() => new ReadsConditionTwiceStore())).toEqual([
      "fencing (every write takes a trailing condition) > reads a condition's kind and version once: one that changes between reads is judged as first read",
    ]);
  });

  describe('the option for stores that persist nothing', () => {
    it('passes noOpDualAnchorCheckpointStore()', async () => {
      expect(await failingKitCases(() => noOpDualAnchorCheckpointStore(), { persists: false })).toEqual([]);
    });

    it('fails noOpDualAnchorCheckpointStore() without the option, wherever a write must be read back', async () => {
      const failing = await failingKitCases(() => noOpDualAnchorCheckpointStore());
      expect(failing).toEqual(expect.arrayContaining([...brandNewCases, interleavedCase]));
    });

    it('fails a store that does persist, under the option: it must find nothing and refuse conditions', async () => {
      expect(await failingKitCases(() => new InMemoryDualAnchorCheckpointStore(), { persists: false })).toEqual([
        'a store that persists nothing > every valid write resolves, and nothing is ever found',
        'a store that persists nothing > it cannot evaluate conditions, so it refuses every condition but any()',
      ]);
    });
  });

  it('hands every case a fresh store and tears it down', async () => {
    const made: DualAnchorCheckpointStore[] = [];
    const tornDown: DualAnchorCheckpointStore[] = [];
    const cases = registeredCases((recorder) => {
      describeDualAnchorCheckpointStoreConformance(
        'probe',
        () => {
          const store = new InMemoryDualAnchorCheckpointStore();
          made.push(store);
          return store;
        },
        {
          ...recorder,
          teardown: (store) => {
            tornDown.push(store);
          },
        },
      );
    });
    for (const body of cases.values()) {
      await body();
    }
    expect(made).toHaveLength(cases.size);
    expect(new Set(made).size).toBe(cases.size);
    expect(tornDown).toEqual(made);
  });
});
