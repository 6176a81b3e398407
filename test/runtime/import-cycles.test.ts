import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// Files that import one another in a circle cannot be read, tested or moved one at a time; type-only imports count,
// since the circle is in the design whether or not it survives compilation.

const runtime = resolve(import.meta.dirname, '../../runtime');

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(directory, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(directory, entry.name)]
        : [],
  );
}

/** Each file's relative imports, as paths of the source files they name. */
function importGraph(files: readonly string[]): Map<string, string[]> {
  return new Map(
    files.map((file) => [
      file,
      [...readFileSync(file, 'utf8').matchAll(/\b(?:from|import)\s*\(?\s*'(\.[^']+)\.js'/gu)].map(([, target]) =>
        resolve(dirname(file), `${target ?? ''}.ts`),
      ),
    ]),
  );
}

/** Every circle of imports found by a depth-first walk, each as the files along it. */
function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles: string[][] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (file: string): void => {
    const onPath = path.indexOf(file);
    if (onPath !== -1) {
      cycles.push(path.slice(onPath).map((step) => relative(runtime, step)));
      return;
    }
    if (done.has(file)) {
      return;
    }
    path.push(file);
    for (const target of graph.get(file) ?? []) {
      visit(target);
    }
    path.pop();
    done.add(file);
  };
  for (const file of graph.keys()) {
    visit(file);
  }
  return cycles;
}

describe('the runtime’s modules', () => {
  it('import one another in no circle', () => {
    expect(importCycles(importGraph(sourceFiles(runtime)))).toEqual([]);
  });
});
