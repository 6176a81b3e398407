import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';

/** Prettier's configuration files, in the order Prettier looks for them in each folder. */
const PRETTIER_CONFIGS = [
  'package.json',
  'package.yaml',
  '.prettierrc',
  '.prettierrc.json',
  '.prettierrc.yaml',
  '.prettierrc.yml',
  '.prettierrc.json5',
  '.prettierrc.js',
  '.prettierrc.mjs',
  '.prettierrc.cjs',
  'prettier.config.js',
  'prettier.config.mjs',
  'prettier.config.cjs',
  '.prettierrc.ts',
  'prettier.config.ts',
  '.prettierrc.toml',
];
/** Prettier's width when a configuration does not set one. */
const PRETTIER_DEFAULT_WIDTH = 80;

const byFolder = new Map<string, number | undefined>();

/**
 * The line width the project states for `file`, read without running anything, so both front ends wrap generated
 * lines alike: `printWidth` of the nearest Prettier configuration (80 when it sets none), else `max_line_length`
 * from `.editorconfig`; `undefined` when the project states none. A configuration written in JavaScript is read
 * for a literal `printWidth: N`.
 */
export function projectPrintWidth(file: string): number | undefined {
  const folder = dirname(file);
  if (!byFolder.has(folder)) {
    byFolder.set(folder, prettierWidth(folder) ?? editorconfigWidth(folder, file));
  }
  return byFolder.get(folder);
}

function prettierWidth(start: string): number | undefined {
  for (let folder = start; ; folder = dirname(folder)) {
    for (const name of PRETTIER_CONFIGS) {
      const path = join(folder, name);
      if (!existsSync(path)) {
        continue;
      }
      const text = readFileSync(path, 'utf8');
      if (name === 'package.json') {
        const prettier = (JSON.parse(text) as { prettier?: unknown }).prettier;
        if (prettier === undefined) {
          continue;
        }
        return typeof prettier === 'object' && prettier !== null && 'printWidth' in prettier
          ? Number(prettier.printWidth)
          : PRETTIER_DEFAULT_WIDTH;
      }
      if (name === 'package.yaml' && !/^prettier:/m.test(text)) {
        continue;
      }
      const width = /["']?printWidth["']?\s*[:=]\s*(\d+)/.exec(text)?.[1];
      return width === undefined ? PRETTIER_DEFAULT_WIDTH : Number(width);
    }
    if (dirname(folder) === folder) {
      return undefined;
    }
  }
}

/** `max_line_length` of the `.editorconfig` sections that match `file`, the nearest file winning, up to `root = true`. */
function editorconfigWidth(start: string, file: string): number | undefined {
  for (let folder = start; ; folder = dirname(folder)) {
    const path = join(folder, '.editorconfig');
    if (existsSync(path)) {
      const text = readFileSync(path, 'utf8');
      let applies = false;
      let width: number | undefined;
      for (const line of text.split(/\r?\n/)) {
        const section = /^\s*\[(.*)\]\s*$/.exec(line)?.[1];
        if (section !== undefined) {
          applies = sectionMatches(section, file);
          continue;
        }
        const value = /^\s*max_line_length\s*=\s*(\d+)\s*$/i.exec(line)?.[1];
        if (applies && value !== undefined) {
          width = Number(value);
        }
      }
      if (width !== undefined) {
        return width;
      }
      if (/^\s*root\s*=\s*true\s*$/im.test(text)) {
        return undefined;
      }
    }
    if (dirname(folder) === folder) {
      return undefined;
    }
  }
}

/** The section globs a TypeScript or JavaScript file meets in practice: `*`, `*.ts`, `*.{ts,tsx}`, `**.ts`. */
function sectionMatches(section: string, file: string): boolean {
  const extension = extname(file).slice(1);
  const pattern = section.replace(/^\*\*?\/?/, '').replace(/^\*?/, '');
  if (pattern === '' || section === '*' || section === '**') {
    return true;
  }
  const alternatives = /^\.\{(.*)\}$/.exec(pattern)?.[1]?.split(',') ?? [pattern.replace(/^\./, '')];
  return alternatives.some((alternative) => alternative === extension || alternative === basename(file));
}
