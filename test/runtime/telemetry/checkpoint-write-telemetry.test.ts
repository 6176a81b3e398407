import { metrics, SpanStatusCode, trace } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CheckpointWriteCondition,
  CheckpointWriteConditionNotFulfilledError,
  InMemoryCheckpointStorage,
} from '../../../runtime/index.js';
import { InMemoryDualAnchorCheckpointStore } from '../../../runtime/dual-anchor-entry.js';
import { ATTRIBUTE_NAMES, METRIC_NAMES, SPAN_NAMES } from '../../../runtime/telemetry/index.js';
import { RecordingTelemetry } from '../../support/telemetry/recording-telemetry.js';

const { any, ifAbsent, notOlderThan } = CheckpointWriteCondition;

let recording = new RecordingTelemetry();
afterEach(async () => {
  await recording.shutdown();
  recording = new RecordingTelemetry();
});

function attributes(outcome: string, condition: string): Record<string, string> {
  return {
    [ATTRIBUTE_NAMES.backend]: 'memory',
    [ATTRIBUTE_NAMES.condition]: condition,
    [ATTRIBUTE_NAMES.outcome]: outcome,
  };
}

describe('checkpoint storage writes', () => {
  it('counts and times each write by outcome, condition and backend', async () => {
    const storage = new InMemoryCheckpointStorage(recording.options);
    await storage.save('orders', '1', any());
    await storage.save('orders', '2', notOlderThan(5));
    await storage.save('orders', '3', notOlderThan(5));
    await expect(storage.save('orders', '4', notOlderThan(4))).rejects.toThrow(
      CheckpointWriteConditionNotFulfilledError,
    );
    await expect(storage.save('orders', '5', ifAbsent())).rejects.toThrow(CheckpointWriteConditionNotFulfilledError);
    await expect(storage.save('orders', 42 as never, any())).rejects.toThrow(TypeError);

    const expected = [
      { value: 1, attributes: attributes('accepted', 'any') },
      { value: 2, attributes: attributes('accepted', 'not_older_than') },
      { value: 1, attributes: attributes('refused', 'not_older_than') },
      { value: 1, attributes: attributes('refused', 'if_absent') },
      { value: 1, attributes: attributes('error', 'any') },
    ];
    expect(await recording.points(METRIC_NAMES.checkpointWrites)).toEqual(expect.arrayContaining(expected));
    expect(await recording.points(METRIC_NAMES.checkpointWrites)).toHaveLength(expected.length);
    expect(await recording.points(METRIC_NAMES.checkpointWriteDuration)).toEqual(expect.arrayContaining(expected));
  });

  it('records advanceWriteVersion as a not_older_than write, refused when the stored version is newer', async () => {
    const storage = new InMemoryCheckpointStorage(recording.options);
    await storage.advanceWriteVersion('orders', 7n);
    await expect(storage.advanceWriteVersion('orders', 3n)).rejects.toThrow(CheckpointWriteConditionNotFulfilledError);
    expect(await recording.points(METRIC_NAMES.checkpointWrites)).toEqual([
      { value: 1, attributes: attributes('accepted', 'not_older_than') },
      { value: 1, attributes: attributes('refused', 'not_older_than') },
    ]);
  });

  it('wraps each write in a span; a refusal sets its status to error with the refusal message', async () => {
    const storage = new InMemoryCheckpointStorage(recording.options);
    await storage.save('orders', '1', notOlderThan(2));
    const refusal = await storage.save('orders', '2', notOlderThan(1)).catch((error: unknown) => error);
    const [accepted, refused] = recording.spans();
    expect(recording.spans()).toHaveLength(2);
    expect(accepted?.name).toBe(SPAN_NAMES.checkpointWrite);
    expect(accepted?.attributes).toEqual(attributes('accepted', 'not_older_than'));
    expect(accepted?.status.code).toBe(SpanStatusCode.UNSET);
    expect(refused?.attributes).toEqual(attributes('refused', 'not_older_than'));
    expect(refused?.status).toEqual({ code: SpanStatusCode.ERROR, message: (refusal as Error).message });
  });

  it('adds the subscription id to metrics and spans only when recordSubscriptionIds is true', async () => {
    await new InMemoryCheckpointStorage(recording.options).save('orders', '1', any());
    await new InMemoryCheckpointStorage({ ...recording.options, recordSubscriptionIds: true }).save(
      'payments',
      '1',
      any(),
    );
    const ids = (await recording.points(METRIC_NAMES.checkpointWrites)).map(
      (point) => point.attributes[ATTRIBUTE_NAMES.subscriptionId],
    );
    expect(ids.sort()).toEqual(['payments', undefined]);
    expect(recording.spans().map((span) => span.attributes[ATTRIBUTE_NAMES.subscriptionId])).toEqual([
      undefined,
      'payments',
    ]);
  });

  it('uses the global providers registered before it is made, and records nothing when made before them', async () => {
    const madeBefore = new InMemoryCheckpointStorage();
    metrics.setGlobalMeterProvider(recording.meterProvider);
    trace.setGlobalTracerProvider(recording.tracerProvider);
    try {
      await madeBefore.save('orders', '1', notOlderThan(1));
      await expect(madeBefore.save('orders', '2', notOlderThan(0))).rejects.toThrow(
        CheckpointWriteConditionNotFulfilledError,
      );
      expect(await recording.metricNames()).toEqual([]);
      expect(recording.spans()).toEqual([]);
      await new InMemoryCheckpointStorage().save('orders', '3', any());
      expect(await recording.points(METRIC_NAMES.checkpointWrites)).toEqual([
        { value: 1, attributes: attributes('accepted', 'any') },
      ]);
      expect(recording.spans()).toHaveLength(1);
    } finally {
      metrics.disable();
      trace.disable();
    }
  });
});

describe('dual-anchor writes', () => {
  it('count each write with its anchor', async () => {
    const store = new InMemoryDualAnchorCheckpointStore(recording.options);
    const at = new Date('2024-05-01T10:00:00Z');
    await store.saveSeen('orders', { offset: 1 }, at);
    await store.saveProcessed('orders', { offset: 1 }, at, at, notOlderThan(2));
    await expect(store.saveProcessed('orders', { offset: 2 }, at, at, notOlderThan(1))).rejects.toThrow(
      CheckpointWriteConditionNotFulfilledError,
    );
    await store.saveHeartbeat('orders', at);
    await store.resetAfterHistoryLost('orders', { offset: 9 }, { offset: 1 }, at);
    await store.save({
      streamName: 'payments',
      lastSeenToken: null,
      lastSeenTimestamp: null,
      lastProcessedToken: null,
      lastProcessedTimestamp: null,
      lastHeartbeatTimestamp: null,
      metadata: {},
    });
    const anchored = (outcome: string, condition: string, anchor?: string): Record<string, string> => ({
      ...attributes(outcome, condition),
      ...(anchor === undefined ? {} : { [ATTRIBUTE_NAMES.anchor]: anchor }),
    });
    const points = await recording.points(METRIC_NAMES.checkpointWrites);
    expect(points).toEqual(
      expect.arrayContaining([
        { value: 1, attributes: anchored('accepted', 'any', 'seen') },
        { value: 1, attributes: anchored('accepted', 'not_older_than', 'processed') },
        { value: 1, attributes: anchored('refused', 'not_older_than', 'processed') },
        { value: 1, attributes: anchored('accepted', 'any', 'heartbeat') },
        { value: 1, attributes: anchored('accepted', 'any', 'reset') },
        { value: 1, attributes: anchored('accepted', 'any') },
      ]),
    );
    expect(points).toHaveLength(6);
  });
});
