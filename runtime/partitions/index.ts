export type { LiveMember, Member, Membership, MembershipView } from './membership.js';
export {
  membershipView,
  ownedFromText,
  type JoinOutcome,
  type MemberKey,
  type MembershipStore,
} from './membership-store.js';
export { assignPartitions, type AssignmentMember } from './partition-assignment.js';
export { assertPartitionCount, murmur2, partitionOf } from './partition-hash.js';
export { StoredMembership, type MembershipOptions } from './stored-membership.js';
export {
  PartitionedSubscription,
  type OwnedPartitionStatus,
  type PartitionedSubscriptionOptions,
  type PartitionedSubscriptionStatus,
  type PartitionHandler,
  type PartitionHandlerContext,
  type PartitionSource,
} from './partitioned-subscription.js';
