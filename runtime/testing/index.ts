// `checkpoint-fencing/testing`, an ES module of its own (vitest is ESM only). The kits take the runtime's values from
// its root entry alone (`../index.js`, never a module behind it), so that the published kit and a project's code share
// the one CommonJS implementation even where a tool loads the package's ESM itself (doc/adr/0707).
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
