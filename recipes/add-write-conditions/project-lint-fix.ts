import type { ESLint } from 'eslint';
import { importProjectModule } from './project-module.js';
import type { UpgradedText } from './upgrade-file-text.js';
import { clause } from './upgrade-messages.js';

type LintFixOutcome = { readonly text: string; readonly rules: readonly string[]; readonly notice?: string };

/** ESLint's own `--fix` stops after this many passes too. */
const MAX_PASSES = 10;
/** What ESLint 9+ and 8 throw for a project without a configuration: no lint rules to follow, so nothing to say. */
const NO_CONFIG = new Set(['config-file-missing', 'no-config-found']);

/**
 * A fixer for one upgrade run: it asks the project's ESLint, configured as `eslint` run in `cwd` would be, for its
 * fixes, and applies only those inside text the upgrade wrote. No ESLint, no configuration or an ignored file leave
 * the text as it is; an ESLint that throws does too, with a notice. Resolves to the text and the rules it applied.
 */
export function projectLintFixer(cwd: string): (file: string, upgraded: UpgradedText) => Promise<LintFixOutcome> {
  // One ESLint per installation and run, so its configuration is read once a run, and afresh on the next.
  const instances = new Map<unknown, Promise<ESLint | undefined>>();
  return async (file, upgraded) => {
    const unfixed = { text: upgraded.text, rules: [] };
    const module = importProjectModule(file, 'eslint');
    if (module === undefined) {
      return unfixed;
    }
    const instance =
      instances.get(module) ??
      module.then((namespace) => {
        type Module = { ESLint?: typeof ESLint; default?: { ESLint?: typeof ESLint } };
        const ESLintClass = (namespace as Module).ESLint ?? (namespace as Module).default?.ESLint;
        return ESLintClass === undefined ? undefined : new ESLintClass({ cwd });
      });
    instances.set(module, instance);
    try {
      const eslint = await instance;
      return eslint === undefined || (await eslint.isPathIgnored(file))
        ? unfixed
        : await fixInsertedText(eslint, file, upgraded);
    } catch (error) {
      const template = (error as { messageTemplate?: unknown } | undefined)?.messageTemplate;
      const reason = error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
      return NO_CONFIG.has(String(template)) ? unfixed : { ...unfixed, notice: lintFixSkipped(file, reason) };
    }
  };
}

/**
 * Applies ESLint's fixes that lie inside the ranges the upgrade inserted, pass after pass, as `eslint --fix` does;
 * after each pass a range grows or shrinks by the fixes inside it and moves by those before it.
 */
async function fixInsertedText(eslint: ESLint, file: string, upgraded: UpgradedText): Promise<LintFixOutcome> {
  let { text, inserted } = upgraded;
  const rules = new Set<string>();
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const [result] = await eslint.lintText(text, { filePath: file, warnIgnored: false });
    const fatal = result?.messages.find((message) => message.fatal === true);
    if (fatal !== undefined) {
      return { text, rules: [...rules].sort(), notice: lintFixSkipped(file, fatal.message) };
    }
    const owner = ({ range: [start, end] }: { range: readonly [number, number] }): number =>
      inserted.findIndex(([from, to]) => from <= start && end <= to);
    const fixes = (result?.messages ?? [])
      .flatMap(({ ruleId, fix }) =>
        ruleId !== null && fix !== undefined && owner(fix) >= 0 ? [{ ...fix, ruleId }] : [],
      )
      .sort((a, b) => a.range[0] - b.range[0] || a.range[1] - b.range[1]);
    // Overlapping or touching fixes wait for the next pass, as ESLint's own fixer has them.
    const applied: typeof fixes = [];
    for (const fix of fixes) {
      if (fix.range[0] > (applied.at(-1)?.range[1] ?? -1)) {
        applied.push(fix);
      }
    }
    if (applied.length === 0) {
      break;
    }
    for (const fix of applied.reverse()) {
      const [start, end] = fix.range;
      const [index, delta] = [owner(fix), fix.text.length - (end - start)];
      text = text.slice(0, start) + fix.text + text.slice(end);
      inserted = inserted.map(([from, to], other) =>
        other < index ? [from, to] : other === index ? [from, to + delta] : [from + delta, to + delta],
      );
      rules.add(fix.ruleId);
    }
  }
  return { text, rules: [...rules].sort() };
}

function lintFixSkipped(file: string, reason: string): string {
  return `note: ${file}: the project's ESLint fixes were not applied (${clause(reason)}); the lines the upgrade wrote may need \`eslint --fix\`.`;
}
