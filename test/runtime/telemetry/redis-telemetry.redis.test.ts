import { SpanStatusCode } from '@opentelemetry/api';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  CheckpointWriteCondition,
  CheckpointWriteConditionNotFulfilledError,
  RedisCheckpointStorage,
  RedisLeaseStrategy,
} from '../../../runtime/index.js';
import { RedisDualAnchorCheckpointStore } from '../../../runtime/dual-anchor-entry.js';
import { ATTRIBUTE_NAMES, METRIC_NAMES } from '../../../runtime/telemetry/index.js';
import { useSharedRedis } from '../../support/redis/index.js';
import { RecordingTelemetry } from '../../support/telemetry/recording-telemetry.js';
import { spyOnWarnings, ThrowingSpanProcessor, writeEveryOutcome } from '../../support/telemetry/throwing-telemetry.js';

const { notOlderThan } = CheckpointWriteCondition;
const shared = useSharedRedis();

let recording = new RecordingTelemetry();
afterEach(async () => {
  await recording.shutdown();
  recording = new RecordingTelemetry();
});

describe('telemetry on a real redis-server', () => {
  it('records the checkpoint writes, the anchor writes and the grants of the Redis classes', async () => {
    await shared.flush();
    const redis = shared.connect();
    const options = { ...recording.options, waitForReplicas: false } as const;
    const storage = new RedisCheckpointStorage(redis, options);
    await storage.save('orders', '1', notOlderThan(2));
    await expect(storage.save('orders', '2', notOlderThan(1))).rejects.toThrow(
      CheckpointWriteConditionNotFulfilledError,
    );
    await new RedisDualAnchorCheckpointStore(redis, recording.options).saveSeen('orders', { offset: 1 }, new Date());
    const strategy = new RedisLeaseStrategy(redis, { ...options, leaseTimeMs: 60_000 });
    await strategy.register('orders', 'node-a');
    await strategy.shutdown();

    const redisWrite = (outcome: string, anchor?: string): Record<string, string> => ({
      [ATTRIBUTE_NAMES.backend]: 'redis',
      [ATTRIBUTE_NAMES.condition]: anchor === undefined ? 'not_older_than' : 'any',
      [ATTRIBUTE_NAMES.outcome]: outcome,
      ...(anchor === undefined ? {} : { [ATTRIBUTE_NAMES.anchor]: anchor }),
    });
    const writes = await recording.points(METRIC_NAMES.checkpointWrites);
    expect(writes).toEqual(
      expect.arrayContaining([
        { value: 1, attributes: redisWrite('accepted') },
        { value: 1, attributes: redisWrite('refused') },
        { value: 1, attributes: redisWrite('accepted', 'seen') },
      ]),
    );
    expect(writes).toHaveLength(3);
    expect(await recording.points(METRIC_NAMES.leaseGrants)).toEqual([{ value: 1, attributes: {} }]);
    expect(await recording.points(METRIC_NAMES.leaseHeld)).toEqual([{ value: 0, attributes: {} }]);
    expect(recording.spans().map((span) => span.status.code)).toEqual([
      SpanStatusCode.UNSET,
      SpanStatusCode.ERROR,
      SpanStatusCode.UNSET,
    ]);
  });

  it('leaves each write its outcome when a span processor throws from onStart', async () => {
    await shared.flush();
    const warnings = spyOnWarnings();
    const processor = new ThrowingSpanProcessor('onStart');
    const throwing = new RecordingTelemetry([processor]);
    try {
      const storage = new RedisCheckpointStorage(shared.connect(), throwing.options);
      await writeEveryOutcome(storage);
      expect(processor.thrown).toBe(4);
      expect(await throwing.points(METRIC_NAMES.checkpointWrites)).toHaveLength(3);
      expect(warnings).toHaveBeenCalledTimes(1);
    } finally {
      vi.restoreAllMocks();
      await throwing.shutdown();
    }
  });
});
