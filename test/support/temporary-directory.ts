import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
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

/** A {@link temporaryDirectory} holding `files`, keyed by their path inside it. */
export function temporaryProject(prefix: string, files: Readonly<Record<string, string>>): string {
  const directory = temporaryDirectory(prefix);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(directory, file)), { recursive: true });
    writeFileSync(join(directory, file), text);
  }
  return directory;
}
