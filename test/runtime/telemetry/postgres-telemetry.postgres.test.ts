import { SpanStatusCode } from '@opentelemetry/api';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  CheckpointWriteCondition,
  CheckpointWriteConditionNotFulfilledError,
  PostgresCheckpointStorage,
  PostgresLeaseStrategy,
} from '../../../runtime/index.js';
import { PostgresDualAnchorCheckpointStore } from '../../../runtime/dual-anchor-entry.js';
import { ATTRIBUTE_NAMES, METRIC_NAMES } from '../../../runtime/telemetry/index.js';
import { freshTableName, useSharedPostgres } from '../../support/postgres/index.js';
import { RecordingTelemetry } from '../../support/telemetry/recording-telemetry.js';
import { spyOnWarnings, ThrowingSpanProcessor, writeEveryOutcome } from '../../support/telemetry/throwing-telemetry.js';

const { ifAbsent, notOlderThan } = CheckpointWriteCondition;
const postgres = useSharedPostgres();

let recording = new RecordingTelemetry();
afterEach(async () => {
  await recording.shutdown();
  recording = new RecordingTelemetry();
});

describe('telemetry on a real PostgreSQL server', () => {
  it('records the checkpoint writes, the anchor writes and the grants of the PostgreSQL classes', async () => {
    const storage = new PostgresCheckpointStorage(postgres.pool(), {
      table: freshTableName('telemetry'),
      ...recording.options,
    });
    await storage.createTable();
    await storage.save('orders', '1', ifAbsent());
    await expect(storage.save('orders', '2', ifAbsent())).rejects.toThrow(CheckpointWriteConditionNotFulfilledError);
    const anchors = new PostgresDualAnchorCheckpointStore(postgres.pool(), {
      table: freshTableName('telemetry_anchors'),
      ...recording.options,
    });
    await anchors.createTable();
    await anchors.saveHeartbeat('orders', new Date());
    const strategy = new PostgresLeaseStrategy(postgres.pool(), {
      table: freshTableName('telemetry_leases'),
      leaseTimeMs: 60_000,
      ...recording.options,
    });
    await strategy.createTable();
    await strategy.register('orders', 'node-a');
    await strategy.shutdown();

    const postgresWrite = (outcome: string, condition: string, anchor?: string): Record<string, string> => ({
      [ATTRIBUTE_NAMES.backend]: 'postgres',
      [ATTRIBUTE_NAMES.condition]: condition,
      [ATTRIBUTE_NAMES.outcome]: outcome,
      ...(anchor === undefined ? {} : { [ATTRIBUTE_NAMES.anchor]: anchor }),
    });
    const writes = await recording.points(METRIC_NAMES.checkpointWrites);
    expect(writes).toEqual(
      expect.arrayContaining([
        { value: 1, attributes: postgresWrite('accepted', 'if_absent') },
        { value: 1, attributes: postgresWrite('refused', 'if_absent') },
        { value: 1, attributes: postgresWrite('accepted', 'any', 'heartbeat') },
      ]),
    );
    expect(writes).toHaveLength(3);
    expect(await recording.points(METRIC_NAMES.leaseGrants)).toEqual([{ value: 1, attributes: {} }]);
    expect(recording.spans().map((span) => span.status.code)).toEqual([
      SpanStatusCode.UNSET,
      SpanStatusCode.ERROR,
      SpanStatusCode.UNSET,
    ]);
  });

  it('leaves each write its outcome when a span processor throws from onEnd', async () => {
    const warnings = spyOnWarnings();
    const processor = new ThrowingSpanProcessor('onEnd');
    const throwing = new RecordingTelemetry([processor]);
    try {
      const storage = new PostgresCheckpointStorage(postgres.pool(), {
        table: freshTableName('telemetry_throwing'),
        ...throwing.options,
      });
      await storage.createTable();
      await writeEveryOutcome(storage);
      // A binding to each of three transactions records as the storage does, and warns no more.
      for (const position of ['5', '6', '7']) {
        const client = await postgres.pool().connect();
        try {
          await client.query('BEGIN');
          await storage.withinTransaction(client).save('orders', position, notOlderThan(3));
          await client.query('COMMIT');
        } finally {
          client.release();
        }
      }
      expect(await storage.read('orders')).toBe('7');
      expect(processor.thrown).toBe(7);
      expect(throwing.spans().map((span) => span.attributes[ATTRIBUTE_NAMES.outcome])).toEqual([
        'accepted',
        'refused',
        'accepted',
        'error',
        'accepted',
        'accepted',
        'accepted',
      ]);
      expect(warnings).toHaveBeenCalledTimes(1);
    } finally {
      vi.restoreAllMocks();
      await throwing.shutdown();
    }
  });
});
