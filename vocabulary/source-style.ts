import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/** How a file is written, so that generated code reads like the code around it. */
export interface SourceStyle {
  readonly newline: '\n' | '\r\n';
  /** A tab, or the smallest run of leading spaces found. */
  readonly indentUnit: string;
  /** The quote of the file's import specifiers. */
  readonly quote: '"' | "'";
  readonly semicolons: boolean;
  /** The column generated lines wrap at (a tab counts as four). */
  readonly width: number;
  /** Whether a broken import or object ends with a comma. */
  readonly trailingCommas: boolean;
  /** Whether a broken parameter list does: Prettier's `"all"` (3.x) does, `"es5"` (2.x) only the other lists. */
  readonly parameterTrailingCommas: boolean;
  /** `{ a, b }` (Prettier's `bracketSpacing`) or `{a, b}`. */
  readonly bracketSpacing: boolean;
}

/**
 * Reads the style off `source` (the text of `file`); where it shows none, the settings the nearest Prettier
 * configuration spells out, else Prettier's defaults. Where a Biome configuration applies, its formatter settings (over
 * Biome's defaults) win.
 */
export function detectSourceStyle(source: string, file: string): SourceStyle {
  const prettier = prettierSettings(dirname(file));
  const crlf = count(source, /\r\n/g);
  const trailingCommas =
    shows(count(source, /,[ \t]*\r?\n[ \t]*[\]}]/g), count(source, /[\w'"`)\]][ \t]*\r?\n[ \t]*\]/g)) ??
    prettier?.trailingCommas ??
    true;
  // Statements that end a line: imports, returns and throws are the most reliable witnesses.
  const complete = [...source.matchAll(/^[ \t]*(?:import|export|return|throw|const|let)\b[^\r\n]*$/gm)]
    .map((match) => match[0].trimEnd())
    .filter((line) => !/[{,([]$/.test(line));
  const semicolons = complete.filter((line) => line.endsWith(';')).length;
  const singleQuotes = shows(
    count(source, /\b(?:from|import|require\()\s*'/g),
    count(source, /\b(?:from|import|require\()\s*"/g),
  );
  // A JSDoc continuation line (` * text`) is indented by one space past its opener, not by a level.
  const indents = [...source.matchAll(/^[ \t]+[^\s*]/gm)].map((match) => match[0].length - 1);
  return {
    newline: crlf > count(source, /\n/g) - crlf ? '\r\n' : '\n',
    indentUnit: /^\t[ \t]*\S/m.test(source) ? '\t' : ' '.repeat(indents.length === 0 ? 2 : Math.min(...indents)),
    quote: (singleQuotes ?? prettier?.quote !== '"') ? "'" : '"',
    semicolons: shows(semicolons, complete.length - semicolons) ?? prettier?.semicolons ?? true,
    width: prettier?.width ?? editorconfigWidth(file) ?? Math.max(80, ...source.split(/\r?\n/).map(columns)),
    trailingCommas,
    // Without a broken parameter list to go by, Prettier's setting, else the other lists: its default puts commas in both.
    parameterTrailingCommas:
      shows(count(source, /,[ \t]*\r?\n[ \t]*\)/g), count(source, /[\w'"`)\]][ \t]*\r?\n[ \t]*\)/g)) ??
      prettier?.parameterTrailingCommas ??
      trailingCommas,
    bracketSpacing:
      shows(
        count(source, /\b(?:import|export)(?:\s+type)?\s*\{[ \t]+\S|\bconst\s*\{[ \t]+\S/g),
        count(source, /\b(?:import|export)(?:\s+type)?\s*\{[^\s}]|\bconst\s*\{[^\s}]/g),
      ) ??
      prettier?.bracketSpacing ??
      true,
    ...biomeStyle(dirname(file)),
  };
}

/** Whether a file shows one way (`yes` times) at least as often as the other (`no`); nothing when it shows neither. */
function shows(yes: number, no: number): boolean | undefined {
  return yes + no === 0 ? undefined : yes >= no;
}

function count(source: string, pattern: RegExp): number {
  return (source.match(pattern) ?? []).length;
}

/** The columns `line` takes, a tab counting as four. */
export function columns(line: string): number {
  return line.length + 3 * count(line, /\t/g);
}

/** Leading whitespace of the line `offset` is on. */
export function lineIndent(text: string, offset: number): string {
  return /^[ \t]*/.exec(lineAt(text, offset))?.[0] ?? '';
}

/** The whole line `offset` is on, without its newline. */
export function lineAt(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  const end = text.indexOf('\n', offset);
  return text.slice(start, end === -1 ? text.length : end).replace(/\r$/, '');
}

/** Prettier's configuration files: `package.json` and `package.yaml` count only with a `prettier` key. */
const PRETTIER_CONFIG = /^(?:package\.json|package\.yaml|\.prettierrc(?:\.\w+)?|prettier\.config\.[mc]?[jt]s)$/;

/** The settings of Prettier's that stand in for what a file does not show. */
const PRETTIER_SETTINGS = ['semi', 'singleQuote', 'trailingComma', 'bracketSpacing'];

/**
 * The nearest Prettier configuration's width (its `printWidth`, else 80) and the settings it spells out (`semi`,
 * `singleQuote`, `trailingComma`, `bracketSpacing`), read without running anything.
 */
function prettierSettings(folder: string): (Partial<SourceStyle> & { width: number }) | undefined {
  // A folder missing on disk is one a jscodeshift caller only named; package.json is read first, as Prettier does.
  const names = existsSync(folder) ? readdirSync(folder).filter((entry) => PRETTIER_CONFIG.test(entry)) : [];
  for (const name of names.sort((a, b) => Number(b === 'package.json') - Number(a === 'package.json'))) {
    const text = readFileSync(join(folder, name), 'utf8');
    // A `prettier` key naming a shared configuration (a string) sets no width here.
    const settings =
      name === 'package.json'
        ? JSON.stringify((JSON.parse(text) as { prettier?: unknown }).prettier)
        : name !== 'package.yaml' || /^prettier:/m.test(text)
          ? text
          : undefined;
    if (settings !== undefined) {
      const setting = (key: string) => new RegExp(`["']?\\b${key}["']?\\s*[:=]\\s*["']?(\\w+)`).exec(settings)?.[1];
      const [semi, singleQuote, trailingComma, bracketSpacing] = PRETTIER_SETTINGS.map(setting);
      return {
        width: Number(setting('printWidth') ?? 80),
        ...(semi === undefined ? {} : { semicolons: semi !== 'false' }),
        ...(singleQuote === undefined ? {} : { quote: singleQuote === 'true' ? "'" : '"' }),
        ...(trailingComma === undefined
          ? {}
          : { trailingCommas: trailingComma !== 'none', parameterTrailingCommas: trailingComma === 'all' }),
        ...(bracketSpacing === undefined ? {} : { bracketSpacing: bracketSpacing !== 'false' }),
      };
    }
  }
  return dirname(folder) === folder ? undefined : prettierSettings(dirname(folder));
}

/**
 * How the nearest biome.json or biome.jsonc (with the configurations it extends) formats JavaScript and TypeScript:
 * `javascript.formatter` over `formatter`, over Biome's defaults (a tab, 80 columns, double quotes, semicolons, trailing
 * commas everywhere). None without a configuration or with its formatter off; `overrides` are not read.
 */
function biomeStyle(folder: string): Partial<SourceStyle> | undefined {
  const config = biomeConfig(folder);
  const settings = config === undefined ? { enabled: false } : biomeFormatter(config);
  const { indentStyle = 'tab', indentWidth = settings['indentSize'] ?? 2, lineWidth = 80, quoteStyle } = settings;
  const { semicolons, trailingCommas = settings['trailingComma'] ?? 'all', bracketSpacing, enabled } = settings;
  return enabled === false
    ? undefined
    : {
        indentUnit: indentStyle === 'tab' ? '\t' : ' '.repeat(Number(indentWidth)),
        width: Number(lineWidth),
        quote: quoteStyle === 'single' ? "'" : '"',
        semicolons: semicolons !== 'asNeeded',
        trailingCommas: trailingCommas !== 'none',
        parameterTrailingCommas: trailingCommas === 'all',
        bracketSpacing: bracketSpacing !== false,
      };
}

/** The nearest biome.json or biome.jsonc at or above `folder`. */
export function biomeConfig(folder: string): string | undefined {
  const found = ['biome.json', 'biome.jsonc'].map((name) => join(folder, name)).find((path) => existsSync(path));
  return found ?? (dirname(folder) === folder ? undefined : biomeConfig(dirname(folder)));
}

/** The formatter settings of a Biome configuration after those of the files it extends (`//` is the root's). */
function biomeFormatter(path: string): Formatter {
  type Config = { extends?: string | string[]; formatter?: Formatter; javascript?: { formatter?: Formatter } };
  const { extends: bases = [], formatter, javascript } = parseJsonc(readFileSync(path, 'utf8')) as Config;
  const extended = [bases]
    .flat()
    .map((base) => (base === '//' ? biomeConfig(dirname(dirname(path))) : resolve(dirname(path), base)))
    .filter((base): base is string => base !== undefined && existsSync(base));
  return Object.assign({}, ...extended.map(biomeFormatter), formatter, javascript?.formatter) as Formatter;
}

/** Settings of Biome's `formatter` or `javascript.formatter`, by name. */
type Formatter = Readonly<Record<string, unknown>>;

/** JSON with comments and trailing commas, as biome.jsonc and tsconfig.json allow; `{}` when it does not parse. */
function parseJsonc(text: string): unknown {
  const json = text
    .replace(/("(?:\\.|[^"\\])*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (_match, string?: string) => string ?? '')
    .replace(/("(?:\\.|[^"\\])*")|,(\s*[\]}])/g, (_match, string?: string, end?: string) => string ?? end ?? '');
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return {};
  }
}

/** `max_line_length` of the `.editorconfig` sections that match `file`, the nearest file winning, up to `root = true`. */
function editorconfigWidth(file: string, folder = dirname(file)): number | undefined {
  const path = join(folder, '.editorconfig');
  const text = existsSync(path) ? readFileSync(path, 'utf8') : '';
  let applies = false;
  let width: number | undefined;
  for (const line of text.split(/\r?\n/)) {
    const section = /^\s*\[(.*)\]\s*$/.exec(line)?.[1];
    applies = section === undefined ? applies : sectionMatches(section, file);
    const value = /^\s*max_line_length\s*=\s*(\d+)\s*$/i.exec(line)?.[1];
    width = applies && value !== undefined ? Number(value) : width;
  }
  const last = /^\s*root\s*=\s*true\s*$/im.test(text) || dirname(folder) === folder;
  return width ?? (last ? undefined : editorconfigWidth(file, dirname(folder)));
}

/** Whether a section's glob for names (`*`, `*.ts`, `*.{ts,tsx}`, `**.ts`, after a leading `**` folder) matches `file`. */
function sectionMatches(section: string, file: string): boolean {
  const pattern = section
    .replace(/^\*\*\//, '')
    .replace(/[.+^$()|\\[\]]/g, '\\$&')
    .replace(/\*+/g, '.*')
    .replace(/\?/g, '.')
    .replace(/\{([^}]*)\}/g, (_braces, alternatives: string) => `(?:${alternatives.replaceAll(',', '|')})`);
  return new RegExp(`^${pattern}$`).test(basename(file));
}
