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
    const offenders = sourceFiles(runtime).filter((file) =>
      /\b(?:from|import|require)\s*\(?\s*['"](?:pg|pg-[\w-]+)['"]/u.test(readFileSync(file, 'utf8')),
    );
    expect(offenders).toEqual([]);
  });

  it('declares pg 8 as an optional peer dependency and a devDependency', () => {
    const manifest = JSON.parse(readFileSync(resolve(runtime, '../package.json'), 'utf8')) as {
      peerDependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
      devDependencies: Record<string, string>;
      dependencies: Record<string, string>;
    };
    expect(manifest.peerDependencies['pg']).toBe('^8.0.0');
    expect(manifest.peerDependenciesMeta['pg']).toEqual({ optional: true });
    expect(manifest.devDependencies['pg']).toMatch(/^8\./u);
    expect(manifest.dependencies['pg']).toBeUndefined();
  });
});
