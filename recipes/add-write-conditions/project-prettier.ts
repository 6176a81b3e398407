import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { importProjectModule } from './project-module.js';

/** The part of Prettier's API (2.x and 3.x) the upgrade uses; 2.x answers synchronously, which `await` absorbs. */
interface Prettier {
  resolveConfig(file: string, options?: { editorconfig?: boolean }): Promise<Record<string, unknown> | null>;
  getFileInfo(file: string, options?: { ignorePath?: string }): Promise<{ ignored: boolean }>;
  check(source: string, options: Record<string, unknown>): Promise<boolean>;
  format(source: string, options: Record<string, unknown>): Promise<string>;
}

const BOM = '\uFEFF';

/**
 * Runs the project's own Prettier over an upgraded file when the project configures Prettier for it and the file was
 * Prettier-formatted before, so the upgrade never reformats code it did not add; `cwd`'s `.prettierignore` is
 * honoured, as Prettier's CLI does. Resolves to the text, with why Prettier failed when it did.
 */
export async function formatWithProjectPrettier(
  file: string,
  before: string,
  after: string,
  cwd: string,
): Promise<{ text: string; failure?: string }> {
  const prettier = await importProjectModule(file, 'prettier')?.then(prettierApi, () => undefined);
  if (prettier === undefined) {
    return { text: after };
  }
  try {
    const config = await prettier.resolveConfig(file, { editorconfig: true });
    const ignorePath = join(cwd, '.prettierignore');
    const info = await prettier.getFileInfo(file, existsSync(ignorePath) ? { ignorePath } : {});
    const options = { ...config, filepath: file };
    if (config === null || info.ignored || !(await prettier.check(before.replace(/^\uFEFF/, ''), options))) {
      return { text: after };
    }
    const bom = after.startsWith(BOM) ? BOM : '';
    return { text: bom + (await prettier.format(after.slice(bom.length), options)) };
  } catch (error) {
    return { text: after, failure: error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error) };
  }
}

/**
 * The API in the namespace `import('prettier')` gives: the namespace itself for Prettier 3; the default export for
 * Prettier 2, CommonJS, whose namespace has only the names Node finds statically (`format`, not `resolveConfig`).
 */
export function prettierApi(namespace: unknown): Prettier | undefined {
  const module = namespace as { default?: Prettier } & Partial<Prettier>;
  return typeof module.resolveConfig === 'function' ? (module as Prettier) : module.default;
}
