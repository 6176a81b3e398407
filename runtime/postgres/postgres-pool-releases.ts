import type { PostgresClient } from './postgres-client.js';

/**
 * How many times each client went back to each pool, as the pool reports it through its documented `release` event
 * (`pool.on('release', (error, client) => …)`, pg 8.10 and later). One listener a pool, added by the first binding
 * to one of its clients; pools and clients are held weakly.
 */
const releasesByPool = new WeakMap<object, WeakMap<object, number>>();

/**
 * A check that answers whether `client` was released to `pool` since this call; `undefined` when `pool` reports no
 * releases (it has no `on`: it is not a `pg.Pool`). A pg older than 8.10 never emits the event, so there the check
 * never answers true.
 */
export function watchRelease(pool: PostgresClient, client: PostgresClient): (() => boolean) | undefined {
  const on = (pool as { on?: unknown }).on;
  if (typeof on !== 'function') {
    return undefined;
  }
  let releases = releasesByPool.get(pool);
  if (releases === undefined) {
    const counts = new WeakMap<object, number>();
    (on as (event: string, listener: (error: unknown, released: unknown) => void) => unknown).call(
      pool,
      'release',
      (_error, released) => {
        if (typeof released === 'object' && released !== null) {
          counts.set(released, (counts.get(released) ?? 0) + 1);
        }
      },
    );
    releasesByPool.set(pool, counts);
    releases = counts;
  }
  const counts = releases;
  const atBinding = counts.get(client) ?? 0;
  return () => (counts.get(client) ?? 0) !== atBinding;
}
