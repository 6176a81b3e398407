import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workspaceFolders } from '../support/workspace-packages.js';

// Every package says MIT in its package.json; the LICENSE beside it is what makes that true for whoever installs it
// (npm packs a package folder's LICENSE whatever its `files` say). Each folder keeps a copy of the root's, as
// typescript-eslint's packages do, so that `npm pack` needs no build step to ship it.

const REPOSITORY = resolve(import.meta.dirname, '../..');
const license = readFileSync(join(REPOSITORY, 'LICENSE'), 'utf8');

describe('LICENSE', () => {
  it('is the MIT License of the checkpoint-fencing contributors', () => {
    expect(license.split('\n').slice(0, 3)).toEqual([
      'MIT License',
      '',
      'Copyright (c) 2026 checkpoint-fencing contributors',
    ]);
  });

  it.each(workspaceFolders(REPOSITORY))('%s keeps a copy of it and says MIT', (folder) => {
    expect(readFileSync(join(REPOSITORY, folder, 'LICENSE'), 'utf8')).toBe(license);
    const manifest = JSON.parse(readFileSync(join(REPOSITORY, folder, 'package.json'), 'utf8')) as { license?: string };
    expect(manifest.license).toBe('MIT');
  });
});
