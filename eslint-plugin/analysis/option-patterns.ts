const compiled = new Map<string, RegExp>();

/**
 * The case-insensitive regular expression a rule option's source stands for (`tokenPattern`, `storagePattern`).
 * ESLint creates every rule once per file, so each source is compiled once and shared: without the `g` or `y` flag a
 * regular expression keeps no state between tests.
 */
export function optionPattern(source: string): RegExp {
  let pattern = compiled.get(source);
  if (pattern === undefined) {
    pattern = new RegExp(source, 'iu');
    compiled.set(source, pattern);
  }
  return pattern;
}
