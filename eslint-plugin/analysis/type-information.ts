import type { ParserServicesWithTypeInformation, TSESLint } from '@typescript-eslint/utils';
import type * as ts from 'typescript';

/** The parser services a rule in `useTypeInformation` mode reads types through. */
export type TypeInformation = ParserServicesWithTypeInformation;

/**
 * The type information a rule asked for with `useTypeInformation: true`, or `undefined` when it did not ask.
 * A rule never switches mode by whether types happen to be there, so asking without a program is an error.
 * @throws Error naming the rule and the fix when types were asked for but the parser has none.
 */
export function typeInformationFor(
  context: Readonly<TSESLint.RuleContext<string, readonly unknown[]>>,
  useTypeInformation: boolean,
): TypeInformation | undefined {
  if (!useTypeInformation) {
    return undefined;
  }
  const services = context.sourceCode.parserServices;
  if (services?.program == null) {
    throw new Error(
      `${context.id}: useTypeInformation is true but ${context.filename} was parsed without type information. ` +
        'Set languageOptions.parserOptions.projectService: true (typescript-eslint parser), or use configs.recommended, whose rules work syntactically.',
    );
  }
  return services as TypeInformation;
}

/** Whether every non-nullish part of `type` is a bigint or a number: the only shapes a fencing token has. */
export function isNumericTokenType(type: ts.Type, checker: ts.TypeChecker): boolean {
  const present = checker.getNonNullableType(type);
  const parts = present.isUnion() ? present.types : [present];
  const bigint = checker.getBigIntType();
  const number = checker.getNumberType();
  return (
    parts.length > 0 &&
    parts.every((part) => checker.isTypeAssignableTo(part, bigint) || checker.isTypeAssignableTo(part, number))
  );
}

/**
 * Whether `type` is, extends or implements a type named `CheckpointStorage` (the runtime's, or a project's own
 * pre-fencing one), or is the type of an object literal written as one (`{ ... } satisfies CheckpointStorage`
 * returned by a factory); for a union, every non-nullish member must be one.
 */
export function isCheckpointStorageType(type: ts.Type, checker: ts.TypeChecker): boolean {
  const present = checker.getNonNullableType(type);
  const parts = present.isUnion() ? present.types : [present];
  return parts.length > 0 && parts.every((part) => namesOrInheritsCheckpointStorage(part, checker, new Set()));
}

function namesOrInheritsCheckpointStorage(type: ts.Type, checker: ts.TypeChecker, seen: Set<ts.Type>): boolean {
  if (seen.has(type)) {
    return false;
  }
  seen.add(type);
  const symbol = type.aliasSymbol ?? type.getSymbol();
  if (symbol === undefined) {
    return false;
  }
  if (symbol.getName() === 'CheckpointStorage' || isObjectLiteralWrittenAsStorage(symbol, checker, seen)) {
    return true;
  }
  const inherited = [
    ...(type.isClassOrInterface() ? checker.getBaseTypes(type) : []),
    ...implementedTypes(symbol, checker),
  ];
  return inherited.some((base) => namesOrInheritsCheckpointStorage(base, checker, seen));
}

/** TypeScript's name for the symbol of an object literal's type (`ts.InternalSymbolName.Object`). */
const OBJECT_LITERAL_SYMBOL = '__object';

/** The type a literal was written against (`satisfies`, an annotation, a typed return) is its contextual type. */
function isObjectLiteralWrittenAsStorage(symbol: ts.Symbol, checker: ts.TypeChecker, seen: Set<ts.Type>): boolean {
  if (symbol.getName() !== OBJECT_LITERAL_SYMBOL) {
    return false;
  }
  return (symbol.getDeclarations() ?? []).some((declaration) => {
    // An object literal's type symbol is declared by the literal expression itself.
    const contextual = checker.getContextualType(declaration as unknown as ts.Expression);
    return contextual !== undefined && namesOrInheritsCheckpointStorage(contextual, checker, seen);
  });
}

function implementedTypes(symbol: ts.Symbol, checker: ts.TypeChecker): ts.Type[] {
  return (symbol.getDeclarations() ?? []).flatMap((declaration) =>
    'heritageClauses' in declaration && Array.isArray(declaration.heritageClauses)
      ? (declaration.heritageClauses as readonly ts.HeritageClause[]).flatMap((clause) =>
          clause.types.map((heritage) => checker.getTypeAtLocation(heritage)),
        )
      : [],
  );
}
