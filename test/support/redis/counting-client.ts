/** `client` with every call of `methods` counted in `calls`: a script or a pipeline is one round trip. */
export function countingCalls<T extends object>(
  client: T,
  methods: readonly string[],
): { readonly client: T; readonly calls: Map<string, number> } {
  const calls = new Map<string, number>(methods.map((method) => [method, 0]));
  const counted = new Proxy(client, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') {
        return value;
      }
      const method = value as (...args: unknown[]) => unknown;
      return (...args: unknown[]) => {
        if (typeof property === 'string' && calls.has(property)) {
          calls.set(property, (calls.get(property) ?? 0) + 1);
        }
        return method.apply(target, args);
      };
    },
  });
  return { client: counted, calls };
}
