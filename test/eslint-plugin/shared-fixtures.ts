// Code and findings that more than one of the plugin's tests lint or expect.

/**
 * A consumer whose first write is unfenced (reported in both modes); the second receiver only has a storage's name,
 * which the syntactic mode takes for a storage and the type-aware mode, seeing its type, does not.
 */
export const consumerWithStorageNamedCache = `import { type CheckpointStorage } from 'checkpoint-fencing';

export async function handle(storage: CheckpointStorage, subscriptionId: string, fencingToken: bigint): Promise<void> {
  await storage.save(subscriptionId, 'position-7');
  console.log(fencingToken);
}

type Cache = { save(key: string, value: string): Promise<void> };

export async function remember(storage: Cache, fencingToken: bigint): Promise<void> {
  await storage.save('last-token', String(fencingToken));
}
`;

const syntacticLegacyAppFindings = [
  'src/consumer/checkpointing-consumer.ts:29 checkpoint-fencing/no-token-without-write',
  'src/consumer/checkpointing-consumer.ts:38 checkpoint-fencing/no-unfenced-write',
  'src/storages/key-value-checkpoint-storage.ts:14 checkpoint-fencing/no-ignored-write-condition',
  'src/storages/key-value-checkpoint-storage.ts:19 checkpoint-fencing/no-ignored-write-condition',
  'src/storages/map-checkpoint-storage.ts:15 checkpoint-fencing/no-ignored-write-condition',
  'src/storages/map-checkpoint-storage.ts:7 checkpoint-fencing/no-ignored-write-condition',
  'src/storages/sql-checkpoint-storage.ts:20 checkpoint-fencing/no-ignored-write-condition',
  'src/storages/sql-checkpoint-storage.ts:8 checkpoint-fencing/no-ignored-write-condition',
];

/**
 * What each config reports on fixtures/legacy-app, as `file:line rule` from the app's folder, sorted: the unfenced
 * loop, the logged-only token and every storage that drops the condition; with types also the Postgres subclass,
 * which only inherits the interface.
 */
export const legacyAppFindings = {
  recommended: syntacticLegacyAppFindings,
  'recommended-type-checked': [
    ...syntacticLegacyAppFindings,
    'src/storages/postgres-checkpoint-storage.ts:10 checkpoint-fencing/no-ignored-write-condition',
  ].sort(),
} as const satisfies Record<'recommended' | 'recommended-type-checked', readonly string[]>;
