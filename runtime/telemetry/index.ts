export { advanceWriteVersionCondition, CheckpointWriteTelemetry } from './checkpoint-write-telemetry.js';
export { LeaseTelemetry } from './lease-telemetry.js';
export { PartitionTelemetry } from './partition-telemetry.js';
export { SubscriptionTelemetry } from './subscription-telemetry.js';
export {
  ATTRIBUTE_NAMES,
  METRIC_NAMES,
  SPAN_NAMES,
  type DualAnchorName,
  type StorageBackend,
} from './telemetry-names.js';
export type {
  TelemetryContext,
  TelemetryMeterProvider,
  TelemetryOptions,
  TelemetryTracerProvider,
} from './telemetry-options.js';
