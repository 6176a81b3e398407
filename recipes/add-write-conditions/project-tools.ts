import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ESLint } from 'eslint';
import { biomeConfig } from '../../vocabulary/source-style.js';
import type { UpgradedText } from './upgrade-data.js';
import { clause, upgradeMessages } from './upgrade-messages.js';

/** The URL code in `file` imports `name` from: the project's own copy of an optional peer, never one of ours. */
function projectModuleUrl(file: string, name: string): string | undefined {
  try {
    return pathToFileURL(createRequire(join(dirname(file), 'noop.js')).resolve(name)).href;
  } catch {
    return undefined;
  }
}

/** The part of Prettier's API (2.x and 3.x) the upgrade uses; 2.x answers synchronously, which `await` absorbs. */
interface Prettier {
  resolveConfig(file: string, options?: { editorconfig?: boolean }): Promise<Record<string, unknown> | null>;
  getFileInfo(file: string, options?: { ignorePath?: string }): Promise<{ ignored: boolean }>;
  format(source: string, options: Record<string, unknown>): Promise<string>;
}

/**
 * The API in the namespace `import('prettier')` gives: the namespace itself for Prettier 3; the default export for
 * Prettier 2, CommonJS, whose namespace has only the names Node finds statically (`format`, not `resolveConfig`).
 */
export function prettierApi(namespace: unknown): Prettier | undefined {
  const module = namespace as { default?: Prettier } & Partial<Prettier>;
  return typeof module.resolveConfig === 'function' ? (module as Prettier) : module.default;
}

type LintFixOutcome = { readonly text: string; readonly rules: readonly string[]; readonly notice?: string };

/** ESLint's own `--fix` stops after this many passes too. */
const MAX_PASSES = 10;
/** What ESLint 9+ and 8 throw for a project without a configuration: no lint rules to follow, so nothing to say. */
const NO_CONFIG = new Set(['config-file-missing', 'no-config-found']);

/**
 * The project's own tools applied to an upgraded file: its ESLint's fixes inside the text the upgrade wrote (unless
 * `lintFix` is false), then its Biome or Prettier when configured and `before` was formatted, so no other code is
 * reformatted.
 * A tool missing, unconfigured or failing leaves the text as it is, with a line in `notices`.
 */
export function projectTools(cwd: string, lintFix: boolean) {
  // One ESLint per installation and run, so its configuration is read once a run, and afresh on the next.
  const eslints = new Map<string, Promise<ESLint | undefined>>();
  const lint = async (file: string, upgraded: UpgradedText): Promise<LintFixOutcome> => {
    const unfixed = { text: upgraded.text, rules: [] };
    const url = lintFix ? projectModuleUrl(file, 'eslint') : undefined;
    if (url === undefined) {
      return unfixed;
    }
    const instance =
      eslints.get(url) ??
      import(url).then(async (namespace: unknown) => {
        type Api = { ESLint?: typeof ESLint; loadESLint?: (options: { cwd: string }) => Promise<typeof ESLint> };
        const api = (namespace as Api & { default?: Api }).default ?? (namespace as Api);
        // ESLint 8.57's `ESLint` reads only eslintrc; `loadESLint` (8.57 and up) picks the class the project's
        // configuration needs, as its command line does: flat when an eslint.config.* is found.
        const ESLintClass = (await api.loadESLint?.({ cwd })) ?? api.ESLint;
        return ESLintClass === undefined ? undefined : new ESLintClass({ cwd });
      });
    eslints.set(url, instance);
    try {
      const eslint = await instance;
      return eslint === undefined || (await eslint.isPathIgnored(file))
        ? unfixed
        : await fixInsertedText(eslint, file, upgraded);
    } catch (error) {
      const template = (error as { messageTemplate?: unknown } | undefined)?.messageTemplate;
      return NO_CONFIG.has(String(template)) ? unfixed : { ...unfixed, notice: lintFixSkipped(file, firstLine(error)) };
    }
  };
  // The project's formatter as a function of a file's text: Biome where a Biome configuration applies, else Prettier.
  const formatter = async (file: string): Promise<((text: string) => Promise<string>) | undefined> => {
    const biome = projectModuleUrl(file, '@biomejs/biome/bin/biome');
    if (biome !== undefined && biomeConfig(dirname(file)) !== undefined) {
      // Its CLI, as the project runs it from here: formats, and sorts imports as `biome ci` wants them; no lint fixes.
      const args = [fileURLToPath(biome), 'check', '--write', '--linter-enabled=false', `--stdin-file-path=${file}`];
      return async (text) =>
        execFileSync(process.execPath, args, { cwd, input: text, encoding: 'utf8', stdio: 'pipe' });
    }
    const url = projectModuleUrl(file, 'prettier');
    const prettier = url === undefined ? undefined : await import(url).then(prettierApi, () => undefined);
    const config = await prettier?.resolveConfig(file, { editorconfig: true });
    const ignorePath = join(cwd, '.prettierignore');
    const info = await prettier?.getFileInfo(file, existsSync(ignorePath) ? { ignorePath } : {});
    return prettier && config && !info?.ignored
      ? (text) => prettier.format(text, { ...config, filepath: file })
      : undefined;
  };
  // Only a file the formatter leaves as it is gets formatted: no other code is reformatted.
  const format = async (file: string, before: string, after: string, notices: string[]): Promise<string> => {
    try {
      const tool = await formatter(file);
      return tool !== undefined && (await tool(before)) === before ? await tool(after) : after;
    } catch (error) {
      notices.push(upgradeMessages.formatterFailed(file, firstLine(error)));
      return after;
    }
  };
  return async (file: string, before: string, upgraded: UpgradedText, notices: string[]) => {
    // Lint fixes first: they are found only in what the upgrade wrote, and Prettier then formats the fixed text.
    const { text, rules, notice } = await lint(file, upgraded);
    notices.push(...(notice === undefined ? [] : [notice]));
    return { text: await format(file, before, text, notices), lintFixes: rules };
  };
}

/** ESLint's fixes inside the ranges the upgrade inserted, pass after pass as `eslint --fix`, ranges moved by each. */
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

function firstLine(error: unknown): string {
  return error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
}
