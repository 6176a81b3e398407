import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const runtime = resolve(import.meta.dirname, '../../../runtime');

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(directory, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(directory, entry.name)]
        : [],
  );
}

describe('the runtime and pg', () => {
  it('imports nothing from pg (pg is an optional peer dependency; the client type is structural)', () => {
    // A type-only import is erased from the build: the operator's types name pg's, and it loads the user's pg itself.
    const offenders = sourceFiles(runtime).filter((file) =>
      /^(?!import type\b).*\b(?:from|import|require)\s*\(?\s*['"](?:pg|pg-[\w-]+)['"]/mu.test(
        readFileSync(file, 'utf8'),
      ),
    );
    expect(offenders).toEqual([]);
  });

  it('declares pg 8 as an optional peer dependency of the runtime and a devDependency of the workspace', () => {
    const manifest = JSON.parse(readFileSync(resolve(runtime, 'package.json'), 'utf8')) as {
      peerDependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
      dependencies?: Record<string, string>;
    };
    const workspace = JSON.parse(readFileSync(resolve(runtime, '../package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
    };
    expect(manifest.peerDependencies['pg']).toBe('^8.0.0');
    expect(manifest.peerDependenciesMeta['pg']).toEqual({ optional: true });
    expect(workspace.devDependencies['pg']).toMatch(/^8\./u);
    expect(manifest.dependencies).toBeUndefined();
  });
});
