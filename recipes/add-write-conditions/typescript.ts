import { createRequire } from 'node:module';
import type { ts as Typescript } from 'ts-morph';

const require = createRequire(import.meta.url);

/**
 * The TypeScript compiler ts-morph bundles. Both front ends parse and read with this one copy, so a syntax kind means
 * the same in every tree, whatever `typescript` the user's project has installed. It is required from ts-morph's own
 * dependency rather than through ts-morph's index: the jscodeshift transform needs the parser but not ts-morph, and
 * importing a CommonJS bundle from ESM would also make Node scan it for named exports.
 */
export const ts: typeof Typescript = (
  createRequire(require.resolve('ts-morph'))('@ts-morph/common') as { ts: typeof Typescript }
).ts;
