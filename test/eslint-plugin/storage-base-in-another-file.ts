import type { Checkpoint, CheckpointStorage } from '../../runtime/index.js';

// A storage base class in a file of its own, for the type-aware case of a subclass whose file spells neither `save`
// nor the interface (ADR 0310): the save it inherits comes from a table class that is no storage and never sees the
// write condition.

/** A key-value table whose save predates write conditions. */
export class KeyValueTable {
  protected readonly rows = new Map<string, Checkpoint>();

  async save(key: string, value: Checkpoint): Promise<Checkpoint> {
    this.rows.set(key, value);
    return value;
  }
}

/** A storage that inherits the table's two-parameter save. */
export abstract class TableStorage extends KeyValueTable implements CheckpointStorage {
  async read(subscriptionId: string): Promise<Checkpoint | undefined> {
    return this.rows.get(subscriptionId);
  }

  async writeVersion(): Promise<bigint | undefined> {
    return undefined;
  }

  async delete(subscriptionId: string): Promise<void> {
    this.rows.delete(subscriptionId);
  }
}
