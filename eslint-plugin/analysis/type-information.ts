import type { ParserServicesWithTypeInformation, TSESLint } from '@typescript-eslint/utils';
import type * as ts from 'typescript';

/** The parser services a rule in `useTypeInformation` mode reads types through. */
export type TypeInformation = ParserServicesWithTypeInformation;

/**
 * The type information a rule asked for with `useTypeInformation: true`, or `undefined` when it did not ask, or when
 * the file has none: its parser options turn type information off on purpose (`project: false`,
 * `projectService: false`, as typescript-eslint's `disableTypeChecked` and our `disable-type-checked` do for JavaScript
 * files), the parser gave typescript-eslint's isolated stand-in program, or the config gives types to other files only
 * (typed `src/**`, untyped scripts). The rule then runs syntactically on that file (doc/adr/0306). A run in which no
 * file had types warns once, on stderr, when the process exits: a config that forgot `projectService` does not pass
 * silently as syntactic lint.
 */
export function typeInformationFor(
  context: Readonly<TSESLint.RuleContext<string, readonly unknown[]>>,
  useTypeInformation: boolean,
): TypeInformation | undefined {
  if (!useTypeInformation) {
    return undefined;
  }
  // ESLint 8.57's flat mode already has languageOptions; a context without it would be a legacy .eslintrc run.
  const { languageOptions } = context as { readonly languageOptions?: typeof context.languageOptions };
  // Checked before the program: in a single run (CI=true, or the eslint binary without --fix) typescript-eslint hands
  // a file parsed a second time an isolated program even where the options turned types off.
  if (typeInformationTurnedOff(languageOptions?.parserOptions)) {
    return undefined;
  }
  const services = context.sourceCode.parserServices;
  if (services?.program == null) {
    noteFileWithoutTypes(context.id);
    return undefined;
  }
  if (isIsolatedProgram(services.program)) {
    return undefined;
  }
  run.typedFileSeen = true;
  return services as TypeInformation;
}

/**
 * What this process has linted with a type-aware rule: whether any file had types, and the first rule that found a
 * file without them. ESLint gives rules no end-of-run hook, so the verdict waits for the process's exit; a
 * long-running editor server never exits, and there a file's reports already show which mode it was linted in.
 */
const run: { typedFileSeen: boolean; ruleOnUntypedFile?: string } = { typedFileSeen: false };

function noteFileWithoutTypes(ruleId: string): void {
  if (run.ruleOnUntypedFile !== undefined) {
    return;
  }
  run.ruleOnUntypedFile = ruleId;
  process.once('exit', () => {
    if (!run.typedFileSeen) {
      process.stderr.write(
        `eslint-plugin-checkpoint-fencing: no file in this run had type information, so ${ruleId} and the other ` +
          'rules set to useTypeInformation linted syntactically. Set languageOptions.parserOptions.projectService: ' +
          'true (typescript-eslint parser) for your TypeScript files, or use configs.recommended for syntactic lint.\n',
      );
    }
  });
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

/**
 * Whether `program` is the stand-in typescript-eslint builds, in a single run, for a file parsed again (each pass of
 * `--fix-dry-run`, or of the Node API's `fix: true`): one file, no working directory, and every import resolved to the
 * linted file itself. Its types are not the project's, and the checker throws TypeErrors on ordinary code there (an
 * `implements` of an imported interface), so a rule reads no types from it. A program built from a tsconfig or by the
 * project service always has the directory it was built in.
 */
function isIsolatedProgram(program: ts.Program): boolean {
  return program.getCurrentDirectory() === '';
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
 * The JSDoc `@implements {T}` tags of a JavaScript class, which TypeScript checks the class against but does not
 * count among its heritage clauses.
 */
export function jsDocImplementsTags(declaration: ts.Node): ts.JSDocImplementsTag[] {
  // TypeScript keeps a declaration's parsed JSDoc on the node; its getJSDocImplementsTags() reads the same property,
  // but is a value of the compiler, which plugin code must not load (ADR 0304).
  const { jsDoc } = declaration as { readonly jsDoc?: readonly ts.JSDoc[] };
  return (jsDoc ?? [])
    .flatMap((comment) => comment.tags ?? [])
    .filter((tag): tag is ts.JSDocImplementsTag => tag.tagName.text === 'implements' && 'class' in tag);
}
