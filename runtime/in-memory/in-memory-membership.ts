import { StoredMembership, type MembershipOptions } from '../partitions/stored-membership.js';
import { InMemoryMembershipTable } from './in-memory-membership-table.js';

/** Options of {@link InMemoryMembership}. */
export interface InMemoryMembershipOptions extends MembershipOptions {
  /** The table this "node" is a member in; give several memberships the same table. A private one by default. */
  readonly table?: InMemoryMembershipTable;
}

/** A membership kept in an {@link InMemoryMembershipTable}: several nodes in one process. */
export class InMemoryMembership extends StoredMembership {
  /** The table this membership keeps its members in. */
  readonly table: InMemoryMembershipTable;

  constructor(options: InMemoryMembershipOptions = {}) {
    const table = options.table ?? new InMemoryMembershipTable();
    super(table, options);
    this.table = table;
  }
}
