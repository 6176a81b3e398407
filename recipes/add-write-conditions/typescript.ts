import { createRequire } from 'node:module';
import type { ts as Typescript } from 'ts-morph';

/**
 * The TypeScript compiler that ts-morph bundles and exports as `ts`, so both front ends parse with one copy whatever
 * `typescript` the user's project has. Required rather than imported: importing ts-morph's CommonJS bundle from ESM
 * makes Node scan it for named exports first, which cost the CLI about 0.2 s of CPU on every run.
 */
export const ts: typeof Typescript = (createRequire(import.meta.url)('ts-morph') as { ts: typeof Typescript }).ts;
