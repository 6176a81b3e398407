/** What {@link remember} needs of its cache: a `Map` or, for keys the syntax tree owns, a `WeakMap`. */
interface AnswerCache<K, V> {
  set(key: K, value: V): unknown;
}

/** Any value `??` keeps: a cached `undefined` or `null` would read as "not asked yet" and be worked out each time. */
type Answer = object | string | number | bigint | boolean | symbol;

/**
 * Keeps `answer` in `cache` under `key` and returns it, for the rules' shared caches
 * (doc/benchmarks.md#how-the-rules-keep-the-cost-down), each read as `cache.get(key) ?? remember(cache, key, work())`:
 * the work runs only when the question is new, and a question asked again costs one lookup, with no closure made, as
 * the rules' hot paths need. The cache alone sets the answer's type, so `new Map()` or an object literal as the answer
 * takes the cache's.
 */
export function remember<K, V extends Answer>(cache: AnswerCache<K, V>, key: K, answer: NoInfer<V>): V {
  cache.set(key, answer);
  return answer;
}
