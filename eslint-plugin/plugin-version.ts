import { createRequire } from 'node:module';

// A self-reference through the package's own `exports` ("./package.json") resolves the same from the TypeScript
// sources under test and from dist/ once installed, so the version is never copied by hand.
const packageJson: unknown = createRequire(import.meta.url)('checkpoint-fencing/package.json');

/** The installed checkpoint-fencing version, reported as the plugin's `meta.version`. */
export const pluginVersion: string = readVersion(packageJson);

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
    'checkpoint-fencing/package.json has no string "version"; the eslint plugin cannot report its meta.version. Reinstall the package.',
  );
}
