import { createRequire } from 'node:module';
import type { ts as Typescript } from 'ts-morph';

/**
 * The TypeScript compiler ts-morph bundles, so both front ends parse with one copy whatever the project's `typescript`.
 * Required, not imported: Node would scan the CommonJS bundle for named exports first, about 0.2 s of CPU a run.
 */
export const ts: typeof Typescript = (createRequire(import.meta.url)('ts-morph') as { ts: typeof Typescript }).ts;
