import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectSourceStyle } from '../../vocabulary/source-style.js';
import { temporaryDirectory } from '../support/temporary-directory.js';

/** The width a file wraps at in a fresh folder holding one configuration file. */
function widthWith(configName: string, configText: string, file = 'storage.ts'): number {
  const folder = temporaryDirectory('source-style');
  writeFileSync(join(folder, configName), configText);
  return detectSourceStyle('const a = 1;\n', join(folder, file)).width;
}

describe('the width generated lines wrap at', () => {
  it("is Prettier's printWidth from package.json, .prettierrc or package.yaml, 80 when it sets none", () => {
    expect(widthWith('package.json', '{"prettier":{"printWidth":105},"devDependencies":{"prettier":"3"}}')).toBe(105);
    expect(widthWith('package.json', '{"prettier":"@company/prettier-config"}')).toBe(80);
    expect(widthWith('.prettierrc', 'printWidth: 106\n')).toBe(106);
    expect(widthWith('package.yaml', 'prettier:\n  printWidth: 107\n')).toBe(107);
  });

  it("is .editorconfig's max_line_length for the sections that match the file", () => {
    expect(widthWith('.editorconfig', 'root = true\n[*]\nmax_line_length = 100\n')).toBe(100);
    expect(
      widthWith('.editorconfig', 'root = true\n[*.{ts,tsx}]\nmax_line_length = 101\n[*.md]\nmax_line_length = 3\n'),
    ).toBe(101);
    expect(widthWith('.editorconfig', 'root = true\n[**.ts]\nmax_line_length = 102\n')).toBe(102);
    expect(widthWith('.editorconfig', 'root = true\n[**/*.ts]\nmax_line_length = 103\n')).toBe(103);
    expect(widthWith('.editorconfig', 'root = true\n[*.js]\nmax_line_length = 104\n')).toBe(80);
  });

  it('follows .editorconfig for each file of a folder, not for the first one styled there', () => {
    const folder = temporaryDirectory('source-style');
    writeFileSync(join(folder, '.editorconfig'), 'root = true\n[*.ts]\nmax_line_length = 100\n');
    expect(detectSourceStyle('const a = 1;\n', join(folder, 'storage.js')).width).toBe(80);
    expect(detectSourceStyle('const a = 1;\n', join(folder, 'storage.ts')).width).toBe(100);
  });
});

describe("a Prettier configuration's settings", () => {
  /** The style of `source` beside `configName` holding `configText`, in a fresh folder. */
  function styleWith(configName: string, configText: string, source: string) {
    const folder = temporaryDirectory('source-style');
    writeFileSync(join(folder, configName), configText);
    const style = detectSourceStyle(source, join(folder, 'storage.ts'));
    const { quote, semicolons, trailingCommas, parameterTrailingCommas, bracketSpacing } = style;
    return { quote, semicolons, trailingCommas, parameterTrailingCommas, bracketSpacing };
  }

  it('stand in for what the file does not show: trailing commas where it breaks no list, its quotes and semicolons', () => {
    const shown = 'storage.save(id, checkpoint)\n';
    expect(styleWith('.prettierrc', '{ "semi": false, "singleQuote": false, "trailingComma": "es5" }', shown)).toEqual({
      ...{ quote: '"', semicolons: false, trailingCommas: true, parameterTrailingCommas: false, bracketSpacing: true },
    });
    expect(styleWith('package.json', '{"prettier":{"trailingComma":"all","bracketSpacing":false}}', shown)).toEqual({
      ...{ quote: "'", semicolons: true, trailingCommas: true, parameterTrailingCommas: true, bracketSpacing: false },
    });
    expect(styleWith('.prettierrc.yaml', 'trailingComma: none\n', shown)).toMatchObject({
      ...{ trailingCommas: false, parameterTrailingCommas: false },
    });
  });

  it('give way to what the file shows, which a file Prettier does not format keeps', () => {
    const shown = 'import {a} from "b"\n\nexport const c = [\n  a\n]\n';
    const config = '{ "semi": true, "singleQuote": true, "trailingComma": "all", "bracketSpacing": true }';
    expect(styleWith('.prettierrc', config, shown)).toEqual({
      ...{ quote: '"', semicolons: false, trailingCommas: false, parameterTrailingCommas: true, bracketSpacing: false },
    });
  });
});

describe("a Biome configuration's formatter settings", () => {
  /** The style of a file with nothing to read off it, under `files` (biome.json and others) in a fresh folder. */
  function styleWith(files: Readonly<Record<string, string>>, file = 'src/storage.ts') {
    const folder = temporaryDirectory('source-style');
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(dirname(join(folder, name)), { recursive: true });
      writeFileSync(join(folder, name), text);
    }
    const { indentUnit, width, quote, semicolons, trailingCommas, parameterTrailingCommas, bracketSpacing } =
      detectSourceStyle('const a = 1;\n', join(folder, file));
    return { indentUnit, width, quote, semicolons, trailingCommas, parameterTrailingCommas, bracketSpacing };
  }

  it("are Biome's defaults where it sets none: a tab, 80 columns, double quotes, semicolons, commas everywhere", () => {
    expect(styleWith({ 'biome.json': '{}' })).toEqual({
      ...{ indentUnit: '\t', width: 80, quote: '"', semicolons: true },
      ...{ trailingCommas: true, parameterTrailingCommas: true, bracketSpacing: true },
    });
  });

  it('read javascript.formatter over formatter, from biome.jsonc with comments and trailing commas', () => {
    const jsonc = `{
      // the house style
      "formatter": { "indentStyle": "space", "indentWidth": 4, "lineWidth": 100, },
      /* JavaScript and TypeScript */
      "javascript": { "formatter": { "lineWidth": 120, "quoteStyle": "single", "semicolons": "asNeeded",
        "trailingCommas": "es5", "bracketSpacing": false } },
    }`;
    expect(styleWith({ 'biome.jsonc': jsonc })).toEqual({
      ...{ indentUnit: '    ', width: 120, quote: "'", semicolons: false },
      ...{ trailingCommas: true, parameterTrailingCommas: false, bracketSpacing: false },
    });
  });

  it('follow extends, by path and to the root ("//"), the nearest configuration winning', () => {
    const root = '{ "formatter": { "lineWidth": 110 }, "javascript": { "formatter": { "quoteStyle": "single" } } }';
    const nested = '{ "extends": "//", "formatter": { "indentStyle": "space" } }';
    expect(
      styleWith({ 'biome.json': root, 'packages/core/biome.json': nested }, 'packages/core/src/a.ts'),
    ).toMatchObject({ indentUnit: '  ', width: 110, quote: "'" });
    const shared = { 'config/biome.json': '{ "formatter": { "lineWidth": 90 } }' };
    expect(styleWith({ ...shared, 'biome.json': '{ "extends": ["./config/biome.json"] }' }).width).toBe(90);
  });

  it('are not read when its formatter is off', () => {
    expect(styleWith({ 'biome.json': '{ "formatter": { "enabled": false, "lineWidth": 120 } }' }).width).toBe(80);
    expect(styleWith({ 'biome.json': '{ "formatter": { "enabled": false } }' }).indentUnit).toBe('  ');
  });
});
