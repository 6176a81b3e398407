/** Deliberately defeats the type checker: the kits' bad-input cases model untyped JavaScript callers. */
export function untyped(value: unknown): never {
  return value as never;
}
