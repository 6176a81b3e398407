import { InMemoryLeaseTable } from './in-memory-lease-table.js';
import { LeaseKeepingStrategy, type LeaseKeepingStrategyOptions } from '../leases/lease-keeping-strategy.js';

/** Options of {@link InMemoryLeaseStrategy}. */
export interface InMemoryLeaseStrategyOptions extends LeaseKeepingStrategyOptions {
  /** The table this "node" competes in; give several strategies the same table. A private one by default. */
  readonly table?: InMemoryLeaseTable;
}

/** A competing-consumer strategy whose leases live in an {@link InMemoryLeaseTable}: several nodes in one process. */
export class InMemoryLeaseStrategy extends LeaseKeepingStrategy {
  /** The table this strategy competes in. */
  readonly table: InMemoryLeaseTable;

  constructor(options: InMemoryLeaseStrategyOptions = {}) {
    const table = options.table ?? new InMemoryLeaseTable();
    super(table, options);
    this.table = table;
  }
}
