import { remember } from './remembered-answer.js';

const compiled = new Map<string, RegExp>();

/**
 * The case-insensitive regular expression a rule option's source stands for (`tokenPattern`, `storagePattern`).
 * ESLint creates every rule once per file, so each source is compiled once and shared: without the `g` or `y` flag a
 * regular expression keeps no state between tests.
 */
export function optionPattern(source: string): RegExp {
  return compiled.get(source) ?? remember(compiled, source, new RegExp(source, 'iu'));
}
