import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { diffChars } from 'diff';
import { clause } from './upgrade-messages.js';

/** The part of ESLint's `ESLint` class (8.x to 10.x) the upgrade uses; a fix replaces `[start, end)` with its text. */
interface ESLintApi {
  isPathIgnored(file: string): Promise<boolean>;
  lintText(
    text: string,
    options: { filePath: string; warnIgnored: boolean },
  ): Promise<{ messages: { ruleId: string | null; fatal?: boolean; message: string; fix?: LintFix }[] }[]>;
}
type ESLintModule = { ESLint?: new (options: { cwd: string }) => ESLintApi };
type LintFix = { readonly range: readonly [number, number]; readonly text: string };

/** What the project's own ESLint fixed in one upgraded file: the text, the rules whose fixes it took, why it could not. */
export interface LintFixOutcome {
  readonly text: string;
  readonly rules: readonly string[];
  readonly notice?: string;
}

/** ESLint's own `--fix` stops after this many passes too. */
const MAX_PASSES = 10;
/** What ESLint 9+ and 8 throw for a project without a configuration: no lint rules to follow, so nothing to say. */
const NO_CONFIG = new Set(['config-file-missing', 'no-config-found']);

/**
 * A fixer for one upgrade run: it asks the ESLint installed where a file is (never one of ours), configured as
 * `eslint` run in `cwd` would be, for its fixes, and applies only those that lie inside text the upgrade wrote, so a
 * line it did not write never changes. No ESLint, no configuration or an ignored file leave the text as it is; an
 * ESLint that throws does too, with a notice naming the error.
 */
export function projectLintFixer(
  cwd: string,
): (file: string, before: string, after: string) => Promise<LintFixOutcome> {
  // One ESLint per installation and run, so its configuration is read once a run, and afresh on the next.
  const instances = new Map<string, Promise<ESLintApi | undefined>>();
  return async (file, before, after) => {
    let entry: string;
    try {
      entry = createRequire(join(dirname(file), 'noop.js')).resolve('eslint');
    } catch {
      return { text: after, rules: [] };
    }
    let instance = instances.get(entry);
    if (instance === undefined) {
      instance = import(pathToFileURL(entry).href).then((module: ESLintModule & { default?: ESLintModule }) => {
        const ESLint = module.ESLint ?? module.default?.ESLint;
        return ESLint === undefined ? undefined : new ESLint({ cwd });
      });
      instances.set(entry, instance);
    }
    try {
      const eslint = await instance;
      if (eslint === undefined || (await eslint.isPathIgnored(file))) {
        return { text: after, rules: [] };
      }
      return await fixInsertedText(eslint, file, before, after);
    } catch (error) {
      const template = (error as { messageTemplate?: unknown } | undefined)?.messageTemplate;
      if (typeof template === 'string' && NO_CONFIG.has(template)) {
        return { text: after, rules: [] };
      }
      const reason = error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
      return { text: after, rules: [], notice: lintFixSkipped(file, reason) };
    }
  };
}

/** Applies ESLint's fixes that lie inside what `after` added to `before`, pass after pass, as `eslint --fix` does. */
async function fixInsertedText(
  eslint: ESLintApi,
  file: string,
  before: string,
  after: string,
): Promise<LintFixOutcome> {
  const bom = after.startsWith('\uFEFF') ? '\uFEFF' : '';
  const original = before.replace(/^\uFEFF/, '');
  let text = after.slice(bom.length);
  const rules = new Set<string>();
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const [result] = await eslint.lintText(text, { filePath: file, warnIgnored: false });
    const fatal = result?.messages.find((message) => message.fatal === true);
    if (fatal !== undefined) {
      return { text: bom + text, rules: [...rules].sort(), notice: lintFixSkipped(file, fatal.message) };
    }
    const inserted = insertedRanges(original, text);
    const inside = (fix: LintFix): boolean =>
      inserted.some(([start, end]) => start <= fix.range[0] && fix.range[1] <= end);
    const fixes = (result?.messages ?? [])
      .flatMap(({ ruleId, fix }) => (ruleId !== null && fix !== undefined && inside(fix) ? [{ ...fix, ruleId }] : []))
      .sort((a, b) => a.range[0] - b.range[0] || a.range[1] - b.range[1]);
    let fixed = '';
    let cursor = -1;
    for (const fix of fixes) {
      // Overlapping or touching fixes wait for the next pass, as ESLint's own fixer has them.
      if (fix.range[0] > cursor) {
        fixed += text.slice(Math.max(cursor, 0), fix.range[0]) + fix.text;
        cursor = fix.range[1];
        rules.add(fix.ruleId);
      }
    }
    if (cursor < 0) {
      break;
    }
    text = fixed + text.slice(cursor);
  }
  return { text: bom + text, rules: [...rules].sort() };
}

/** The `[start, end)` ranges of `after` that are not in `before`: what the upgrade wrote. */
function insertedRanges(before: string, after: string): [number, number][] {
  const ranges: [number, number][] = [];
  let offset = 0;
  for (const part of diffChars(before, after)) {
    if (part.added) {
      ranges.push([offset, offset + part.value.length]);
    }
    offset += part.removed ? 0 : part.value.length;
  }
  return ranges;
}

function lintFixSkipped(file: string, reason: string): string {
  return `note: ${file}: the project's ESLint fixes were not applied (${clause(reason)}); the lines the upgrade wrote may need \`eslint --fix\`.`;
}
