import { createRequire } from 'node:module';

// Each package compiles this folder into its build and names itself here. Resolving `<name>/package.json` finds the
// package's own manifest: by self-reference through its `exports` ("./package.json") once installed, and through the
// workspace's link in node_modules from the TypeScript sources under test, so no version is ever copied by hand.
const require = createRequire(import.meta.url);

/** The installed version of `packageName`, one of this workspace's packages. */
export function packageVersion(packageName: string): string {
  const manifest: unknown = require(`${packageName}/package.json`);
  if (
    typeof manifest === 'object' &&
    manifest !== null &&
    'version' in manifest &&
    typeof manifest.version === 'string'
  ) {
    return manifest.version;
  }
  throw new Error(
    `${packageName}/package.json has no string "version", so its docs and --version cannot be given; reinstall ${packageName}.`,
  );
}

/**
 * The URL of a document shipped in `packageName`, for exactly the installed version
 * (doc/adr/0303-rule-doc-urls-point-at-the-published-package.md), e.g.
 * `packageDocUrl(ESLINT_PLUGIN_PACKAGE_NAME, 'doc/rules/no-unfenced-write.md')`.
 */
export function packageDocUrl(packageName: string, path: string): string {
  return `https://unpkg.com/${packageName}@${packageVersion(packageName)}/${path}`;
}
