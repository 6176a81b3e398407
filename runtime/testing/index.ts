export {
  describeCheckpointStorageConformance,
  type CheckpointStorageFactory,
  type ConformanceSuiteOptions,
} from './describe-checkpoint-storage-conformance.js';
export {
  describeCompetingConsumerStrategyConformance,
  type CompetingConsumerConformanceOptions,
  type CompetingConsumerStrategyFixture,
  type CompetingConsumerStrategyFixtureFactory,
} from './describe-competing-consumer-strategy-conformance.js';
export {
  describeDualAnchorCheckpointStoreConformance,
  type DualAnchorCheckpointStoreFactory,
  type DualAnchorConformanceOptions,
} from './describe-dual-anchor-checkpoint-store-conformance.js';
export {
  describeMembershipConformance,
  type MembershipConformanceFixture,
  type MembershipConformanceFixtureFactory,
  type MembershipConformanceOptions,
} from './describe-membership-conformance.js';
