import { describe, expect, it } from 'vitest';
import { prettierApi } from '../../recipes/add-write-conditions/project-tools.js';

const api = {
  resolveConfig: () => Promise.resolve({}),
  getFileInfo: () => Promise.resolve({ ignored: false }),
  check: () => Promise.resolve(true),
  format: (source: string) => Promise.resolve(source),
};

describe("the project's own Prettier, as import() gives it", () => {
  it('Prettier 3: the namespace is the API', async () => {
    const prettier = prettierApi(await import('prettier'));
    expect(await prettier?.format('const  a=1', { parser: 'babel' })).toBe('const a = 1;\n');
  });

  it('Prettier 2: a CommonJS namespace with format but not resolveConfig; the API is its default (review 17)', () => {
    // What Node makes of Prettier 2's bundle: the one name its static scan finds, and module.exports as default.
    expect(prettierApi({ format: api.format, default: api })).toBe(api);
  });
});
