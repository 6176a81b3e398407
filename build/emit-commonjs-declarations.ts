import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

// After `tsc`, gives every published declaration file a `.d.cts` twin for CommonJS consumers on "node16"/"nodenext"
// resolution, whose `require` condition points there (doc/adr/0701-one-esm-build-required-from-commonjs.md). The
// twins are the same declarations with their relative imports pointing at each other, so a CommonJS consumer never
// crosses into an ESM-format declaration file (TS1479).

const dist = resolve(import.meta.dirname, '..');
const PUBLISHED = ['runtime', 'vocabulary', 'recipes', 'eslint-plugin'];
/** `from './x.js'`, `import('./x.js')`: relative specifiers ending in `.js`. */
const RELATIVE_JS = /(\bfrom\s*|\bimport\s*\(\s*)(['"])(\.{1,2}\/[^'"]*?)\.js\2/g;

let written = 0;
for (const folder of PUBLISHED) {
  for (const file of declarationFiles(join(dist, folder))) {
    const text = readFileSync(file, 'utf8').replace(RELATIVE_JS, '$1$2$3.cjs$2');
    writeFileSync(file.replace(/\.d\.ts$/, '.d.cts'), text);
    written += 1;
  }
}
if (written === 0) {
  throw new Error(`emit-commonjs-declarations: no .d.ts files under ${dist}; run tsc -p tsconfig.build.json first.`);
}

function declarationFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    return entry.isDirectory() ? declarationFiles(path) : entry.name.endsWith('.d.ts') ? [path] : [];
  });
}
