import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** What the generated project holds, so the runner can check that the plugin's rules did run on it. */
export interface GeneratedProject {
  readonly root: string;
  readonly files: number;
  /** Files with one deliberate unconditional write while a fencing token is in scope. */
  readonly unfencedWrites: number;
  /** Dual-anchor store files whose `saveProcessed` deliberately writes the anchor and its heartbeat in two steps. */
  readonly splitHeartbeats: number;
}

/**
 * Writes a TypeScript project of `fileCount` files under `root` (emptied first): mostly ordinary service code that
 * imports from earlier files, so type-checking has real work, and every tenth file a checkpoint-fencing consumer,
 * storage or dual-anchor store, so the plugin's rules have real candidates. `checkpoint-fencing` and its dual-anchor entry map to this
 * repository's runtime source.
 */
export function generateEslintBenchProject(root: string, repository: string, fileCount: number): GeneratedProject {
  rmSync(root, { recursive: true, force: true });
  mkdirSync(path.join(root, 'src'), { recursive: true });
  writeFileSync(
    path.join(root, 'tsconfig.json'),
    JSON.stringify(
      {
        compilerOptions: {
          target: 'es2023',
          lib: ['es2023'],
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: [],
          paths: {
            'checkpoint-fencing': [path.join(repository, 'runtime/index.ts')],
            'checkpoint-fencing/dual-anchor': [path.join(repository, 'runtime/dual-anchor-entry.ts')],
          },
        },
        include: ['src'],
      },
      null,
      2,
    ),
  );
  let unfencedWrites = 0;
  let splitHeartbeats = 0;
  for (let index = 0; index < fileCount; index += 1) {
    const kind = isService(index)
      ? 'service'
      : index % 10 === 3
        ? 'consumer'
        : index % 20 === 17
          ? 'anchors'
          : 'storage';
    const unfenced = kind === 'consumer' && index % 50 === 3;
    const split = kind === 'anchors' && index % 100 === 17;
    unfencedWrites += unfenced ? 1 : 0;
    splitHeartbeats += split ? 1 : 0;
    const text =
      kind === 'consumer'
        ? consumerFile(index, unfenced)
        : kind === 'storage'
          ? storageFile(index)
          : kind === 'anchors'
            ? anchorStoreFile(index, split)
            : serviceFile(index);
    writeFileSync(path.join(root, 'src', `module-${index}.ts`), text);
  }
  return { root, files: fileCount, unfencedWrites, splitHeartbeats };
}

function isService(index: number): boolean {
  return index % 10 !== 3 && index % 10 !== 7;
}

function serviceFile(index: number): string {
  let dependency = index - 1;
  while (dependency >= 0 && !isService(dependency)) {
    dependency -= 1;
  }
  const imports =
    dependency >= 0
      ? `import { Service${dependency}, type Record${dependency} } from './module-${dependency}.js';\n`
      : '';
  const base = dependency >= 0 ? `  readonly #upstream = new Service${dependency}();\n` : '';
  const upstreamCall =
    dependency >= 0
      ? `return this.#upstream.list(() => true).map((entry: Record${dependency}) => ({ ...entry, source: 'upstream' }));`
      : 'return [];';
  return `${imports}
/** Generated record ${index}. */
export interface Record${index} {
  readonly id: string;
  readonly amount: number;
  readonly tags: readonly string[];
  readonly source?: string;
}

/** Generated service ${index}: filters, caches and persists records. */
export class Service${index} {
${base}  readonly #cache = new Map<string, Record${index}>();

  list(filter: (record: Record${index}) => boolean): Record${index}[] {
    return [...this.#cache.values()].filter(filter);
  }

  upstream(): Record${index}[] {
    ${upstreamCall}
  }

  async save(record: Record${index}, store: { save(key: string, value: string): Promise<void> }): Promise<void> {
    this.#cache.set(record.id, record);
    try {
      await store.save(record.id, JSON.stringify(record));
    } catch (error) {
      if (error instanceof TypeError) {
        await store.save(record.id, '{}');
      }
      throw error;
    }
  }

  total(): number {
    let sum = 0;
    for (const record of this.#cache.values()) {
      sum += record.tags.length > 0 ? record.amount : 0;
    }
    return sum;
  }
}

export function describe${index}(record: Record${index}): string {
  const label = record.tags.join(', ');
  return \`\${record.id}: \${record.amount.toFixed(2)} [\${label}]\`;
}
`;
}

function consumerFile(index: number, unfenced: boolean): string {
  const write = unfenced
    ? 'await this.storage.save(subscriptionId, event.position);'
    : 'await this.storage.save(subscriptionId, event.position, CheckpointWriteCondition.notOlderThan(fencingToken));';
  return `import { CheckpointWriteCondition, CheckpointWriteConditionNotFulfilledError, type CheckpointStorage } from 'checkpoint-fencing';

/** Generated consumer ${index}. */
export interface Event${index} {
  readonly position: string;
  readonly payload: string;
}

export class Consumer${index} {
  constructor(
    private readonly storage: CheckpointStorage,
    private readonly strategy: { fencingToken(subscriptionId: string): bigint | undefined },
    private readonly log: (line: string) => void,
  ) {}

  async handle(subscriptionId: string, events: readonly Event${index}[]): Promise<number> {
    let handled = 0;
    for (const event of events) {
      const fencingToken = this.strategy.fencingToken(subscriptionId);
      if (fencingToken === undefined) {
        this.log(\`\${subscriptionId}: lease lost\`);
        return handled;
      }
      try {
        ${write}
        handled += 1;
      } catch (error) {
        if (error instanceof CheckpointWriteConditionNotFulfilledError) {
          this.log(\`\${subscriptionId}: refused at \${event.position}\`);
          return handled;
        }
        throw error;
      }
    }
    return handled;
  }
}
`;
}

function storageFile(index: number): string {
  return `import { CheckpointWriteConditionNotFulfilledError, type CheckpointStorage, type CheckpointWriteCondition } from 'checkpoint-fencing';

/** Generated storage ${index}: decides and writes synchronously between awaits. */
export class Storage${index} implements CheckpointStorage {
  readonly #entries = new Map<string, { checkpoint: string; version: bigint | undefined }>();

  async read(subscriptionId: string): Promise<string | undefined> {
    return this.#entries.get(subscriptionId)?.checkpoint;
  }

  async save(subscriptionId: string, checkpoint: string, condition: CheckpointWriteCondition): Promise<string> {
    const stored = this.#entries.get(subscriptionId);
    if (condition.kind === 'notOlderThan' && stored?.version !== undefined && stored.version > condition.version) {
      throw new CheckpointWriteConditionNotFulfilledError(subscriptionId, condition, stored.version);
    }
    if (condition.kind === 'ifAbsent' && stored !== undefined) {
      throw new CheckpointWriteConditionNotFulfilledError(subscriptionId, condition);
    }
    const version = condition.kind === 'notOlderThan' ? condition.version : stored?.version;
    this.#entries.set(subscriptionId, { checkpoint, version });
    return checkpoint;
  }

  async writeVersion(subscriptionId: string): Promise<bigint | undefined> {
    return this.#entries.get(subscriptionId)?.version;
  }

  async delete(subscriptionId: string): Promise<void> {
    this.#entries.delete(subscriptionId);
  }

  evaluatesWriteConditions(): boolean {
    return true;
  }
}
`;
}

function anchorStoreFile(index: number, split: boolean): string {
  // The deliberate trap: the anchor, then its heartbeat, in two writes where the base class makes one.
  const splitOverride = split
    ? `
  override async saveProcessed(
    streamName: string,
    token: DualAnchorToken,
    timestamp: Date,
    heartbeatTimestamp?: Date,
  ): Promise<void> {
    await this.writeFields(DualAnchorWritePlan.saveProcessed(streamName, token, timestamp));
    if (heartbeatTimestamp !== undefined) {
      await this.saveHeartbeat(streamName, heartbeatTimestamp);
    }
  }
`
    : '';
  return `import { UnsupportedWriteConditionError } from 'checkpoint-fencing';
import {
  decodeDualAnchorCheckpoint,
  DualAnchorCheckpointStoreBase,
  DualAnchorWritePlan,
  emptyStoredDualAnchorFields,
  storedFieldsAfterReset,
  type DualAnchorCheckpoint,
  type DualAnchorFieldWrite,
  type DualAnchorResetWrite,
  type DualAnchorToken,
  type StoredDualAnchorFields,
} from 'checkpoint-fencing/dual-anchor';

/** Generated dual-anchor store ${index}: each step reads and replaces its entry synchronously, so each is atomic. */
export class Anchors${index} extends DualAnchorCheckpointStoreBase {
  readonly #records = new Map<string, StoredDualAnchorFields>();

  evaluatesWriteConditions(): boolean {
    return false;
  }
${splitOverride}
  protected async writeFields(write: DualAnchorFieldWrite): Promise<void> {
    this.#refuseConditions(write);
    this.#records.set(write.streamName, { ...this.#current(write.streamName), ...write.fields });
  }

  protected async writeReset(reset: DualAnchorResetWrite): Promise<void> {
    this.#refuseConditions(reset);
    this.#records.set(reset.streamName, storedFieldsAfterReset(this.#current(reset.streamName), reset));
  }

  protected async readRecord(streamName: string): Promise<DualAnchorCheckpoint | undefined> {
    const stored = this.#records.get(streamName);
    return stored === undefined ? undefined : decodeDualAnchorCheckpoint(streamName, stored);
  }

  protected async removeRecord(streamName: string): Promise<void> {
    this.#records.delete(streamName);
  }

  #current(streamName: string): StoredDualAnchorFields {
    return this.#records.get(streamName) ?? emptyStoredDualAnchorFields;
  }

  #refuseConditions(write: DualAnchorFieldWrite | DualAnchorResetWrite): void {
    if (write.condition.kind !== 'any') {
      throw new UnsupportedWriteConditionError(write.condition);
    }
  }
}
`;
}
