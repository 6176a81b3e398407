import ts from 'typescript';

/** What a declaration file exports, as the compiler sees it: names, and each exported interface's or class's members. */
export interface DeclaredExports {
  readonly exports: ReadonlySet<string>;
  readonly members: ReadonlyMap<string, readonly string[]>;
}

/** Reads `file` (a built `.d.ts`) with the TypeScript compiler, following its re-exports. */
export function declaredExports(file: string): DeclaredExports {
  const program = ts.createProgram({ rootNames: [file], options: { noEmit: true, types: [], skipLibCheck: true } });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  const module = source === undefined ? undefined : checker.getSymbolAtLocation(source);
  if (module === undefined) {
    throw new Error(`${file}: not a module the compiler can read.`);
  }
  const exports = new Set<string>();
  const members = new Map<string, string[]>();
  for (const symbol of checker.getExportsOfModule(module)) {
    exports.add(symbol.getName());
    const target = (symbol.flags & ts.SymbolFlags.Alias) !== 0 ? checker.getAliasedSymbol(symbol) : symbol;
    if ((target.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.Class)) !== 0) {
      members.set(
        symbol.getName(),
        checker
          .getPropertiesOfType(checker.getDeclaredTypeOfSymbol(target))
          .map((member) => member.getName())
          // A class with ES private members declares one `#private;` so that structural checks tell it apart; no one
          // outside the class can name or call it.
          .filter((name) => !name.startsWith('#')),
      );
    }
  }
  return { exports, members };
}
