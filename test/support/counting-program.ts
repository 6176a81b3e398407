import ts from 'typescript';

/** A TypeScript program over `rootFiles` whose checker counts its calls by method name, and those counts. */
export function countingProgram(rootFiles: readonly string[]): {
  readonly program: ts.Program;
  readonly calls: Map<string, number>;
} {
  const program = ts.createProgram(rootFiles, {
    strict: true,
    noEmit: true,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    types: ['node'],
  });
  const checker = program.getTypeChecker();
  const calls = new Map<string, number>();
  const counting = new Proxy(checker, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key);
      if (typeof value !== 'function') {
        return value;
      }
      calls.set(String(key), (calls.get(String(key)) ?? 0) + 1);
      return value.bind(target) as unknown;
    },
  });
  program.getTypeChecker = () => counting;
  return { program, calls };
}
