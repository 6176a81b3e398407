import { describe, expect, it } from 'vitest';
import {
  assertSaveArguments,
  assertSubscriptionId,
  CheckpointWriteConditionNotFulfilledError,
  InMemoryCheckpointStorage,
  UnsupportedWriteConditionError,
  type Checkpoint,
  type CheckpointStorage,
  type CheckpointWriteCondition,
} from '../../runtime/index.js';
import { describeCheckpointStorageConformance, type CheckpointStorageFactory } from '../../runtime/testing/index.js';
import { failingCases, registeredCases } from '../support/conformance/registered-cases.js';

function conformanceCases(factory: CheckpointStorageFactory): Map<string, () => Promise<void>> {
  return registeredCases((recorder) => {
    describeCheckpointStorageConformance('probe', factory, recorder);
  });
}

async function failingCasesOf(factory: CheckpointStorageFactory): Promise<string[]> {
  return failingCases(conformanceCases(factory));
}

/** Answers evaluatesWriteConditions() true, yet writes everything: fencing silently off. */
class IgnoresConditions extends InMemoryCheckpointStorage {
  override save(
    subscriptionId: string,
    checkpoint: Checkpoint,
    condition: CheckpointWriteCondition,
  ): Promise<Checkpoint> {
    assertSaveArguments(subscriptionId, checkpoint, condition);
    return super.save(subscriptionId, checkpoint, { kind: 'any' });
  }
}

/** Clears the stored version on any(), reopening the fence for stale tokens. */
class AnyClearsVersion extends InMemoryCheckpointStorage {
  override async save(
    subscriptionId: string,
    checkpoint: Checkpoint,
    condition: CheckpointWriteCondition,
  ): Promise<Checkpoint> {
    if (condition.kind === 'any') {
      await super.delete(subscriptionId);
    }
    return super.save(subscriptionId, checkpoint, condition);
  }
}

/** Refuses without carrying the stored version. */
class ForgetsStoredVersion extends InMemoryCheckpointStorage {
  override async save(
    subscriptionId: string,
    checkpoint: Checkpoint,
    condition: CheckpointWriteCondition,
  ): Promise<Checkpoint> {
    try {
      return await super.save(subscriptionId, checkpoint, condition);
    } catch (error) {
      if (error instanceof CheckpointWriteConditionNotFulfilledError) {
        throw new CheckpointWriteConditionNotFulfilledError(subscriptionId, condition);
      }
      throw error;
    }
  }
}

/** Advances by starting the entry over: drops the checkpoint, and a lower version is never refused. */
class AdvancesCarelessly extends InMemoryCheckpointStorage {
  override async advanceWriteVersion(subscriptionId: string, version: bigint): Promise<void> {
    await super.delete(subscriptionId);
    await super.advanceWriteVersion(subscriptionId, version);
  }
}

/** A pre-fencing Map store, upgraded the way the recipe does it: honest about evaluating nothing. */
class UpgradedLegacyStorage implements CheckpointStorage {
  readonly #map = new Map<string, Checkpoint>();

  async read(subscriptionId: string): Promise<Checkpoint | undefined> {
    assertSubscriptionId(subscriptionId);
    return this.#map.get(subscriptionId);
  }

  async save(subscriptionId: string, checkpoint: Checkpoint, condition: CheckpointWriteCondition): Promise<Checkpoint> {
    assertSaveArguments(subscriptionId, checkpoint, condition);
    if (condition.kind !== 'any') {
      throw new UnsupportedWriteConditionError(condition);
    }
    this.#map.set(subscriptionId, checkpoint);
    return checkpoint;
  }

  async writeVersion(subscriptionId: string): Promise<bigint | undefined> {
    assertSubscriptionId(subscriptionId);
    return undefined;
  }

  async delete(subscriptionId: string): Promise<void> {
    assertSubscriptionId(subscriptionId);
    this.#map.delete(subscriptionId);
  }
}

/** Claims to evaluate nothing, yet writes past notOlderThan: the capability branch must catch it. */
class SilentlyWritesConditions extends UpgradedLegacyStorage {
  override async save(
    subscriptionId: string,
    checkpoint: Checkpoint,
    condition: CheckpointWriteCondition,
  ): Promise<Checkpoint> {
    return super.save(subscriptionId, checkpoint, { kind: 'any' }).then(() => {
      if (condition.kind === 'ifAbsent') {
        throw new UnsupportedWriteConditionError(condition);
      }
      return checkpoint;
    });
  }
}

/** Accepts any checkpoint value, including numbers from untyped callers. */
class NoInputChecks extends UpgradedLegacyStorage {
  override async save(subscriptionId: unknown, checkpoint: unknown): Promise<Checkpoint> {
    return super.save(String(subscriptionId), String(checkpoint), { kind: 'any' });
  }
}

describe('the conformance kit', () => {
  it('registers a case for every part of the contract', () => {
    const names = [...conformanceCases(() => new InMemoryCheckpointStorage()).keys()];
    expect(names.length).toBeGreaterThanOrEqual(40);
    for (const part of [
      'round trips',
      'deleting',
      'any()',
      'notOlderThan(v)',
      'ifAbsent()',
      'advanceWriteVersion',
      'capability',
      'bad input',
      'concurrency',
    ]) {
      expect(names.some((name) => name.includes(` > ${part}`))).toBe(true);
    }
  });

  it('passes InMemoryCheckpointStorage', async () => {
    expect(await failingCasesOf(() => new InMemoryCheckpointStorage())).toEqual([]);
  });

  it('passes a storage that honestly evaluates no condition (the shape the upgrade recipe writes)', async () => {
    expect(await failingCasesOf(() => new UpgradedLegacyStorage())).toEqual([]);
  });

  it('catches a storage that ignores conditions', async () => {
    const failing = await failingCasesOf(() => new IgnoresConditions());
    expect(failing).toContain(
      'notOlderThan(v) > is refused for an older version, leaving checkpoint and version unchanged',
    );
    expect(failing).toContain('ifAbsent() > is refused when a checkpoint is stored, even with the same value');
  });

  it('catches a storage whose any() clears the stored version', async () => {
    const failing = await failingCasesOf(() => new AnyClearsVersion());
    expect(failing).toContain(
      'any() > keeps a stored version exactly as it was, so a later older token is still refused',
    );
  });

  it('catches a refusal that does not carry the stored version', async () => {
    const failing = await failingCasesOf(() => new ForgetsStoredVersion());
    expect(failing).toContain(
      'notOlderThan(v) > is refused for an older version, leaving checkpoint and version unchanged',
    );
  });

  it('catches a storage that claims no capability but still writes past a condition', async () => {
    const failing = await failingCasesOf(() => new SilentlyWritesConditions());
    expect(failing).toContain(
      'capability > a storage that cannot evaluate conditions refuses them and still accepts any()',
    );
  });

  it('catches an advanceWriteVersion that touches the checkpoint or accepts a lower version', async () => {
    const failing = await failingCasesOf(() => new AdvancesCarelessly());
    expect(failing).toContain(
      'advanceWriteVersion > a stale notOlderThan after an advance is refused, and the checkpoint is untouched',
    );
    expect(failing).toContain(
      'advanceWriteVersion > an equal advance is accepted; a lower one is refused and changes nothing',
    );
  });

  it('catches a storage that writes bad input', async () => {
    const failing = await failingCasesOf(() => new NoInputChecks());
    expect(failing).toContain('bad input gets a TypeError and writes nothing > rejects a number checkpoint');
    expect(failing).toContain(
      'bad input gets a TypeError and writes nothing > rejects a number subscription id to save',
    );
  });

  it('hands every case a fresh storage and tears it down', async () => {
    const made: CheckpointStorage[] = [];
    const tornDown: CheckpointStorage[] = [];
    const cases = new Map<string, () => Promise<void>>();
    describeCheckpointStorageConformance(
      'probe',
      () => {
        const storage = new InMemoryCheckpointStorage();
        made.push(storage);
        return storage;
      },
      {
        describe: (_name, body) => {
          body();
        },
        it: (name, body) => cases.set(name, body),
        teardown: (storage) => {
          tornDown.push(storage);
        },
      },
    );
    for (const body of cases.values()) {
      await body();
    }
    expect(made).toHaveLength(cases.size);
    expect(new Set(made).size).toBe(cases.size);
    expect(tornDown).toEqual(made);
  });
});
