import { describe, expect, it } from 'vitest';
import {
  CLI_PACKAGE_NAME,
  CODEMOD_PACKAGE_NAME,
  ESLINT_PLUGIN_PACKAGE_NAME,
  PACKAGE_NAME,
} from '../../vocabulary/index.js';
import { packedTarball } from '../support/packed-tarball.js';

// Every package.json says MIT; the license text must travel with the code (test/repository/license.test.ts keeps
// each folder's copy equal to the root's).
describe('npm pack --workspaces', { timeout: 900_000 }, () => {
  it.each([PACKAGE_NAME, CLI_PACKAGE_NAME, ESLINT_PLUGIN_PACKAGE_NAME, CODEMOD_PACKAGE_NAME])(
    '%s ships LICENSE',
    (name) => {
      expect(packedTarball(name).files).toContain('LICENSE');
    },
  );
});
