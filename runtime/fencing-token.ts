/**
 * A fencing token: the version a writer stamps on its writes with `CheckpointWriteCondition.notOlderThan(token)`.
 * Issued by a lease, it never decreases per subscription id. The lint rules recognise bindings of this type.
 */
export type FencingToken = bigint;
