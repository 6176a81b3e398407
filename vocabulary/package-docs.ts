import { createRequire } from 'node:module';
import { PACKAGE_NAME } from './names.js';

// A self-reference through the package's own `exports` ("./package.json") resolves the same from the TypeScript
// sources under test and from dist/ once installed, so the version is never copied by hand.
const packageJson: unknown = createRequire(import.meta.url)(`${PACKAGE_NAME}/package.json`);

/** The installed checkpoint-fencing version. */
export const PACKAGE_VERSION: string = readVersion(packageJson);

/**
 * The URL of a document shipped in the package (`doc/` is in `files`), for exactly the installed version
 * (doc/adr/0303-rule-doc-urls-point-at-the-published-package.md), e.g. `packageDocUrl('doc/rules/no-unfenced-write.md')`.
 */
export function packageDocUrl(path: string): string {
  return `https://unpkg.com/${PACKAGE_NAME}@${PACKAGE_VERSION}/${path}`;
}

function readVersion(manifest: unknown): string {
  if (
    typeof manifest === 'object' &&
    manifest !== null &&
    'version' in manifest &&
    typeof manifest.version === 'string'
  ) {
    return manifest.version;
  }
  throw new Error(
    `${PACKAGE_NAME}/package.json has no string "version", so the lint rules and the upgrade cannot link their docs; reinstall the package.`,
  );
}
