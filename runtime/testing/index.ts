export {
  describeCheckpointStorageConformance,
  type CheckpointStorageFactory,
  type ConformanceSuiteOptions,
} from './describe-checkpoint-storage-conformance.js';
