import { SpanStatusCode } from '@opentelemetry/api';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  CheckpointStorageBase,
  CheckpointWriteCondition,
  CheckpointWriteConditionNotFulfilledError,
  FencedCheckpointWriter,
  type Checkpoint,
  type TelemetryOptions,
} from '../../runtime/index.js';
import { ATTRIBUTE_NAMES, METRIC_NAMES } from '../../runtime/telemetry/index.js';
import { describeCheckpointStorageConformance } from '../../runtime/testing/index.js';
import { RecordingTelemetry } from '../support/telemetry/recording-telemetry.js';
import { spyOnWarnings, ThrowingSpanProcessor } from '../support/telemetry/throwing-telemetry.js';

const { any, ifAbsent, notOlderThan } = CheckpointWriteCondition;

/**
 * A storage of a user's own, doc/custom-storages.md's word for word: a `Map`, whose synchronous steps are atomic. It checks
 * nothing itself but the ids of its reads; the base checks and records its writes.
 */
class MapCheckpointStorage extends CheckpointStorageBase {
  readonly #rows = new Map<string, { checkpoint: Checkpoint | undefined; version: bigint | undefined }>();

  constructor(options?: TelemetryOptions) {
    super('map', options); // checkpoint_fencing.backend="map" on its metrics and spans
  }

  protected async write(id: string, checkpoint: Checkpoint, condition: CheckpointWriteCondition): Promise<Checkpoint> {
    const row = this.#rows.get(id);
    if (
      (condition.kind === 'ifAbsent' && row?.checkpoint !== undefined) ||
      (condition.kind === 'notOlderThan' && (row?.version ?? -1n) > condition.version)
    ) {
      throw new CheckpointWriteConditionNotFulfilledError(id, condition, row?.version);
    }
    this.#rows.set(id, { checkpoint, version: condition.kind === 'notOlderThan' ? condition.version : row?.version });
    return checkpoint;
  }

  protected async raiseWriteVersion(id: string, version: bigint): Promise<void> {
    const row = this.#rows.get(id);
    if ((row?.version ?? -1n) > version) {
      const condition = CheckpointWriteCondition.notOlderThan(version);
      throw new CheckpointWriteConditionNotFulfilledError(id, condition, row?.version);
    }
    this.#rows.set(id, { checkpoint: row?.checkpoint, version });
  }

  async read(id: string): Promise<Checkpoint | undefined> {
    this.assertSubscriptionId(id);
    return this.#rows.get(id)?.checkpoint;
  }

  async writeVersion(id: string): Promise<bigint | undefined> {
    this.assertSubscriptionId(id);
    return this.#rows.get(id)?.version;
  }

  async delete(id: string): Promise<void> {
    this.assertSubscriptionId(id);
    this.#rows.delete(id);
  }
}
describeCheckpointStorageConformance('a Map storage on CheckpointStorageBase', () => new MapCheckpointStorage());

describe('a storage of your own on CheckpointStorageBase', () => {
  let recording = new RecordingTelemetry();
  afterEach(async () => {
    vi.restoreAllMocks();
    await recording.shutdown();
    recording = new RecordingTelemetry();
  });

  it('is fenced by a FencedCheckpointWriter, which refuses storages that cannot fence', async () => {
    const storage = new MapCheckpointStorage();
    let token = 5n;
    const writer = new FencedCheckpointWriter(storage, { fencingToken: () => token });
    await writer.save('orders', 'by-5');
    token = 4n;
    await expect(writer.save('orders', 'zombie')).rejects.toThrow(CheckpointWriteConditionNotFulfilledError);
    expect(await storage.read('orders')).toBe('by-5');
  });

  it('has its writes counted, timed and traced under the backend it names', async () => {
    const storage = new MapCheckpointStorage({ ...recording.options, recordSubscriptionIds: true });
    await storage.save('orders', '1', ifAbsent());
    await expect(storage.save('orders', '2', ifAbsent())).rejects.toThrow(CheckpointWriteConditionNotFulfilledError);
    await storage.advanceWriteVersion('orders', 3n);
    await expect(storage.save('orders', '3', untypedCondition())).rejects.toThrow(TypeError);

    const write = (outcome: string, condition: string): Record<string, string> => ({
      [ATTRIBUTE_NAMES.backend]: 'map',
      [ATTRIBUTE_NAMES.condition]: condition,
      [ATTRIBUTE_NAMES.outcome]: outcome,
      [ATTRIBUTE_NAMES.subscriptionId]: 'orders',
    });
    const expected = [
      { value: 1, attributes: write('accepted', 'if_absent') },
      { value: 1, attributes: write('refused', 'if_absent') },
      { value: 1, attributes: write('accepted', 'not_older_than') },
      { value: 1, attributes: write('error', 'not_older_than') },
    ];
    expect(await recording.points(METRIC_NAMES.checkpointWrites)).toEqual(expected);
    expect(await recording.points(METRIC_NAMES.checkpointWriteDuration)).toEqual(expected);
    expect(recording.spans().map((span) => span.status.code)).toEqual([
      SpanStatusCode.UNSET,
      SpanStatusCode.ERROR,
      SpanStatusCode.UNSET,
      SpanStatusCode.ERROR,
    ]);
  });

  it('records nothing without an SDK', async () => {
    const storage = new MapCheckpointStorage();
    await storage.save('orders', '1', any());
    expect(await recording.metricNames()).toEqual([]);
  });

  it('keeps its writes when a span processor throws, and warns once', async () => {
    const warnings = spyOnWarnings();
    const processor = new ThrowingSpanProcessor('onEnd');
    const throwing = new RecordingTelemetry([processor]);
    const storage = new MapCheckpointStorage(throwing.options);
    expect(await storage.save('orders', '1', notOlderThan(1))).toBe('1');
    await expect(storage.save('orders', '0', notOlderThan(0))).rejects.toThrow(
      CheckpointWriteConditionNotFulfilledError,
    );
    expect(await storage.read('orders')).toBe('1');
    expect(processor.thrown).toBe(2);
    expect(warnings).toHaveBeenCalledTimes(1);
    await throwing.shutdown();
  });
});

/** A condition as a caller without types might pass one. */
function untypedCondition(): CheckpointWriteCondition {
  return { kind: 'notOlderThan', version: 3 } as unknown as CheckpointWriteCondition;
}
