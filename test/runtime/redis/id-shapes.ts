/** Ids whose keys Redis Cluster cannot put in one slot: no valid hash tag, and empty or holding `}`. */
export const clusterUnalignableIds = ['', '{}orders', 'a}b{c', 'orders}v2'] as const;

/** Ids with braces that Cluster-safe mode still fences: a valid tag, or no `}` at all. */
export const clusterAlignableIds = ['{tenant}-orders', 'a{b', '{', 'a{b{c}d}e', 'orders'] as const;

/** Shapes whose slot the storage's hash-slot function must get exactly right, the cluster-key-slot package's miss among them. */
export const slotEdgeIds = [
  ...clusterUnalignableIds,
  ...clusterAlignableIds,
  'foo{}{bar}',
  '{}{tenant}',
  '{tenant}-orders{v2}}{',
  'заказы-🧾-注文',
] as const;
