import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectSourceStyle } from '../../recipes/add-write-conditions/source-style.js';
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
