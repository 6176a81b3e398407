import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { packedTarball } from '../support/packed-tarball.js';
import { temporaryDirectory } from '../support/temporary-directory.js';
import { yarn } from '../support/yarn.js';

/** A CommonJS script of the project: saves, is refused, and tells the refusal by `instanceof`. */
const commonJsScript = `const {
  CheckpointWriteCondition,
  CheckpointWriteConditionNotFulfilledError,
  InMemoryCheckpointStorage,
} = require('checkpoint-fencing');
const { InMemoryDualAnchorCheckpointStore } = require('checkpoint-fencing/dual-anchor');

async function main() {
  const storage = new InMemoryCheckpointStorage();
  await storage.save('orders', '7', CheckpointWriteCondition.notOlderThan(3n));
  const refusal = await storage.save('orders', '6', CheckpointWriteCondition.notOlderThan(2n)).catch((error) => error);
  console.log(
    JSON.stringify({
      refused: refusal instanceof CheckpointWriteConditionNotFulfilledError,
      read: await storage.read('orders'),
      dualAnchor: typeof InMemoryDualAnchorCheckpointStore,
    }),
  );
}
void main();
`;

/** An ESM script of the project: every export of the root entry the object `require` gives, one refusal class. */
const esmScript = `import { createRequire } from 'node:module';
import * as esm from 'checkpoint-fencing';
import { InMemoryDualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';

const cjs = createRequire(import.meta.url)('checkpoint-fencing');
const storage = new cjs.InMemoryCheckpointStorage();
await storage.save('orders', '7', cjs.CheckpointWriteCondition.notOlderThan(3n));
const refusal = await storage.save('orders', '6', esm.CheckpointWriteCondition.notOlderThan(2n)).catch((error) => error);
console.log(
  JSON.stringify({
    differing: Object.keys(cjs).filter((name) => esm[name] !== cjs[name]),
    refused: refusal instanceof esm.CheckpointWriteConditionNotFulfilledError,
    dualAnchor: typeof InMemoryDualAnchorCheckpointStore,
  }),
);
`;

/**
 * Yarn 4 turns on its experimental ESM loader (`.pnp.loader.mjs`, loaded into every `yarn node` and `yarn <bin>`)
 * for a whole project as soon as one dependency's package.json says `"type": "module"`, or a workspace's does; `.mjs`
 * files do not count. On some Yarn and Node versions that loader breaks every bin (ERR_LOADER_CHAIN_INCOMPLETE).
 * The runtime is a CommonJS package with `.mjs` ES modules (doc/adr/0707), so adding it changes nothing in how a
 * CommonJS project's scripts load; a project that runs ES modules turns the loader on itself.
 */
describe("the runtime in a Yarn 4 Plug'n'Play project", { timeout: 600_000 }, () => {
  let root: string;

  beforeAll(async () => {
    root = temporaryDirectory('yarn-pnp-runtime');
    await writeFile(
      join(root, 'package.json'),
      JSON.stringify({
        name: 'orders-projector',
        private: true,
        dependencies: { 'checkpoint-fencing': `file:${packedTarball().file}` },
      }),
    );
    await writeFile(join(root, 'main.cjs'), commonJsScript);
    await writeFile(join(root, 'main.mjs'), esmScript);
    await yarn(root, 'install');
  }, 600_000);

  it("leaves a CommonJS project on Node's own loader, and its CommonJS script loads the package", async () => {
    expect(existsSync(join(root, '.pnp.cjs'))).toBe(true);
    expect(existsSync(join(root, 'node_modules'))).toBe(false);
    expect(existsSync(join(root, '.pnp.loader.mjs')), "Yarn's ESM loader").toBe(false);
    expect(JSON.parse(await yarn(root, 'node', 'main.cjs'))).toEqual({
      refused: true,
      read: '7',
      dualAnchor: 'function',
    });
  });

  it('loads from an ESM script once the project turns the loader on, one copy with require', async () => {
    // How a CommonJS Plug'n'Play project runs ES modules: Node's own ESM resolution does not read .pnp.cjs.
    await writeFile(join(root, '.yarnrc.yml'), 'pnpEnableEsmLoader: true\n');
    await yarn(root, 'install');
    expect(existsSync(join(root, '.pnp.loader.mjs'))).toBe(true);
    expect(JSON.parse(await yarn(root, 'node', 'main.mjs'))).toEqual({
      differing: [],
      refused: true,
      dualAnchor: 'function',
    });
    expect(JSON.parse(await yarn(root, 'node', 'main.cjs'))).toMatchObject({ refused: true });
  });
});
