import type * as IORedis from 'ioredis';
import { clusterHashedPart } from 'checkpoint-fencing/store-layout';

/**
 * What a `GET` of a key answers: its string, `null` when it does not exist, or the server's `WRONGTYPE` error for a key
 * of another type (which exists all the same).
 */
export type StringRead = string | null | Error;

/**
 * The `GET` of each of `keys`, in their order, in as few commands as the server takes: one `MGET` on a standalone
 * server, one per Cluster hash tag on a Cluster (an `MGET` must stay in one slot, and keys that hash the same text
 * share one; a subscription's four keys share one unless its id has a tag or a `%`, `{` or `}`). One command for many
 * keys is what keeps an inspection's memory small: each command is a few objects in ioredis until its reply. `MGET`
 * answers nil for a key of another type as for a missing one, so a nil is asked again with `GET`, whose `WRONGTYPE`
 * tells the two apart.
 */
export async function getEach(
  client: IORedis.Redis | IORedis.Cluster,
  isCluster: boolean,
  keys: readonly string[],
): Promise<StringRead[]> {
  if (keys.length === 0) {
    return [];
  }
  const values: StringRead[] = isCluster ? await getByHashedPart(client, keys) : await client.mget([...keys]);
  const missing: Promise<void>[] = [];
  for (const [index, value] of values.entries()) {
    if (value === null) {
      missing.push(
        client.get(keys[index] ?? '').then(
          (again) => {
            values[index] = again;
          },
          (error: unknown) => {
            values[index] = wrongType(error);
          },
        ),
      );
    }
  }
  await Promise.all(missing);
  return values;
}

/** One `MGET` per hashed part of `keys`, all sent at once, the answers put back in the order of `keys`. */
async function getByHashedPart(
  client: IORedis.Redis | IORedis.Cluster,
  keys: readonly string[],
): Promise<(string | null)[]> {
  const indexesByPart = new Map<string, number[]>();
  for (const [index, key] of keys.entries()) {
    const part = clusterHashedPart(key);
    const indexes = indexesByPart.get(part);
    if (indexes === undefined) {
      indexesByPart.set(part, [index]);
    } else {
      indexes.push(index);
    }
  }
  const values: (string | null)[] = [];
  await Promise.all(
    [...indexesByPart.values()].map(async (indexes) => {
      const answers = await client.mget(indexes.map((index) => keys[index] ?? ''));
      for (const [position, index] of indexes.entries()) {
        values[index] = answers[position] ?? null;
      }
    }),
  );
  return values;
}

/** `error` when it is the server's `WRONGTYPE`; any other failure is the inspection's and is thrown again. */
function wrongType(error: unknown): Error {
  if (error instanceof Error && error.message.startsWith('WRONGTYPE')) {
    return error;
  }
  throw error;
}
