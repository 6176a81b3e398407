import type { ParserServicesWithTypeInformation, TSESLint } from '@typescript-eslint/utils';
import type * as ts from 'typescript';

/** The parser services a rule in `useTypeInformation` mode reads types through. */
export type TypeInformation = ParserServicesWithTypeInformation;

/**
 * The type information a rule asked for with `useTypeInformation: true`, or `undefined` when it did not ask, or when
 * the file's parser options turn type information off on purpose (`project: false`, `projectService: false`, as
 * typescript-eslint's `disableTypeChecked` and our `disable-type-checked` do for JavaScript files): the rule then runs
 * syntactically there (doc/adr/0306). A rule never switches mode because types merely happen to be missing.
 * @throws Error naming the rule and the fix when types were asked for, the parser has none, and nothing turned them
 * off: a configuration that forgot `projectService`.
 */
export function typeInformationFor(
  context: Readonly<TSESLint.RuleContext<string, readonly unknown[]>>,
  useTypeInformation: boolean,
): TypeInformation | undefined {
  if (!useTypeInformation) {
    return undefined;
  }
  const services = context.sourceCode.parserServices;
  if (services?.program != null) {
    return services as TypeInformation;
  }
  // ESLint 8.57's flat mode already has languageOptions; a context without it would be a legacy .eslintrc run.
  const { languageOptions } = context as { readonly languageOptions?: typeof context.languageOptions };
  if (typeInformationTurnedOff(languageOptions?.parserOptions)) {
    return undefined;
  }
  throw new Error(
    `${context.id}: useTypeInformation is true but ${context.filename} was parsed without type information. ` +
      'Set languageOptions.parserOptions.projectService: true (typescript-eslint parser); for files no tsconfig ' +
      "covers (JavaScript config files), add checkpointFencing.configs['disable-type-checked'] or typescript-eslint's " +
      'disableTypeChecked for them; or use configs.recommended, whose rules work syntactically.',
  );
}

/**
 * Whether the parser options say "no type information" explicitly: `project` or `projectService` set to `false`, and
 * neither, nor `programs`, asking for a program. Options that merely leave them out say nothing.
 */
function typeInformationTurnedOff(parserOptions: Readonly<Record<string, unknown>> | undefined): boolean {
  if (parserOptions === undefined) {
    return false;
  }
  const { project, projectService, programs } = parserOptions;
  const asksForTypes = Boolean(project) || Boolean(projectService) || Boolean(programs);
  const turnsOff = project === false || projectService === false;
  return turnsOff && !asksForTypes;
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
