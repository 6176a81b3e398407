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
