import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

const created: string[] = [];

// Registered when a test file first imports this module, so each file removes the directories it made.
afterAll(() => {
  for (const directory of created.splice(0)) {
    rmSync(directory, { recursive: true, force: true });
  }
});

/** A fresh directory under the OS temp dir, named `<prefix>-XXXXXX`, removed after the importing test file. */
export function temporaryDirectory(prefix: string): string {
  const directory = mkdtempSync(join(tmpdir(), `${prefix}-`));
  created.push(directory);
  return directory;
}
