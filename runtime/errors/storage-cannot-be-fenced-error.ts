import { quoteText } from '../describe-value.js';
/** A fenced writer was given a storage that cannot evaluate write conditions, so fencing would silently be off. */
export class StorageCannotBeFencedError extends Error {
  override readonly name = 'StorageCannotBeFencedError';

  constructor(
    readonly storageName: string,
    readonly subscriptionId?: string,
  ) {
    super(
      subscriptionId === undefined
        ? `${storageName} cannot be fenced: evaluatesWriteConditions() answers false, so notOlderThan(token) would be refused or ignored. ` +
            'Use a storage that evaluates write conditions atomically (InMemoryCheckpointStorage, RedisCheckpointStorage, PostgresCheckpointStorage).'
        : `${storageName} cannot fence subscription ${quoteText(subscriptionId)}: evaluatesWriteConditionsFor() answers false for this id. ` +
            'Choose an id the storage can fence (for Redis Cluster: one with a hash tag such as "{tenant}-orders"), or a storage built for your deployment.',
    );
  }
}
