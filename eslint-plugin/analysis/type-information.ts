import type { ParserServicesWithTypeInformation, TSESLint } from '@typescript-eslint/utils';
import type * as ts from 'typescript';
import { once } from './memo.js';

/**
 * What a rule in `useTypeInformation` mode reads types through: the program, the map from syntax nodes to
 * TypeScript's, and a node's type. typescript-eslint's parser services from version 6 on; built from the first two
 * where the parser has no `getTypeAtLocation` (typescript-eslint 5).
 */
export type TypeInformation = Pick<
  ParserServicesWithTypeInformation,
  'program' | 'esTreeNodeToTSNodeMap' | 'getTypeAtLocation'
>;

/**
 * The type information a rule asked for with `useTypeInformation: true`, or `undefined` when it did not ask, or when
 * the file has none: its parser options turn type information off on purpose (`project: false`,
 * `projectService: false`, as typescript-eslint's `disableTypeChecked` and our `disable-type-checked` do for JavaScript
 * files), the parser gave typescript-eslint's isolated stand-in program, or the config gives types to other files only
 * (typed `src/**`, untyped scripts). The rule then runs syntactically on that file (doc/adr/0306). A run in which no
 * file had types warns once, on stderr, when the process exits: a config that forgot `projectService` does not pass
 * silently as syntactic lint. Where the TypeScript or parser lacks what the rules call and has no equivalent, the rules
 * lint syntactically too, and one warning names what is missing (doc/adr/0314).
 */
export function typeInformationFor(
  context: Readonly<TSESLint.RuleContext<string, readonly unknown[]>>,
  useTypeInformation: boolean,
): TypeInformation | undefined {
  if (!useTypeInformation) {
    return undefined;
  }
  // ESLint 8 (8.56 and 8.57 read) builds languageOptions from an .eslintrc's parserOptions; the guard is for others.
  const { languageOptions } = context as { readonly languageOptions?: typeof context.languageOptions };
  // Checked before the program: in a single run (CI=true, or the eslint binary without --fix) typescript-eslint hands
  // a file parsed a second time an isolated program even where the options turned types off.
  if (typeInformationTurnedOff(languageOptions?.parserOptions)) {
    return undefined;
  }
  // typescript-eslint 6 and later give a file without types no program; 5 gives it an isolated one.
  const services = context.sourceCode.parserServices as Partial<ParserServicesWithTypeInformation> | undefined;
  const program = services?.program;
  if (program == null || isIsolatedProgram(program)) {
    noteFileWithoutTypes(context.id);
    return undefined;
  }
  const map = services?.esTreeNodeToTSNodeMap;
  const missing = map === undefined ? ['parserServices.esTreeNodeToTSNodeMap'] : missingCheckerMethods(program);
  if (map === undefined || missing.length > 0) {
    warnOfMissingApis(missing);
    return undefined;
  }
  run.typedFileSeen = true;
  const checker = program.getTypeChecker();
  return {
    program,
    esTreeNodeToTSNodeMap: map,
    // typescript-eslint's own definition of it, from version 6 on.
    getTypeAtLocation: services?.getTypeAtLocation ?? ((node) => checker.getTypeAtLocation(map.get(node))),
  };
}

/**
 * What the type-aware rules call on a program's checker, with the oldest TypeScript whose checker has it at run time:
 * 3.3 is typescript-eslint 5's oldest. `getBigIntType` (5.1) is not here: where it is missing,
 * {@link isNumericTokenType} uses an equivalent.
 */
const CHECKER_METHODS: Readonly<Record<string, string>> = {
  getAliasedSymbol: '3.3',
  getBaseConstraintOfType: '3.3',
  getBaseTypes: '3.3',
  getContextualType: '3.3',
  getNonNullableType: '3.3',
  getNumberType: '3.3',
  getSymbolAtLocation: '3.3',
  getTypeAtLocation: '3.3',
  getTypeOfSymbolAtLocation: '3.3',
  isTypeAssignableTo: '3.7',
  typeToString: '3.3',
};

/** The methods of {@link CHECKER_METHODS} that `program`'s checker lacks, each with the TypeScript that has it. */
const missingCheckerMethods = once((program: ts.Program): string[] => {
  const checker = program.getTypeChecker() as unknown as Readonly<Record<string, unknown>>;
  return Object.entries(CHECKER_METHODS)
    .filter(([method]) => typeof checker[method] !== 'function')
    .map(([method, since]) => `checker.${method}() (TypeScript ${since} and later have it)`);
});

/** Says once, at once, what the rules cannot call and that they lint syntactically. */
function warnOfMissingApis(missing: readonly string[]): void {
  if (run.missingApisWarned === true) {
    return;
  }
  run.missingApisWarned = true;
  process.stderr.write(
    `eslint-plugin-checkpoint-fencing: the TypeScript or parser of this lint has no ${missing.join(', ')}, so the ` +
      'rules set to useTypeInformation lint syntactically. Install a TypeScript and a typescript-eslint parser in ' +
      "the ranges of the plugin's peerDependencies (its README lists them).\n",
  );
}

/**
 * What this process has linted with a type-aware rule: whether any file had types, and the first rule that found a
 * file without them. ESLint gives rules no end-of-run hook, so the verdict waits for the process's exit; a
 * long-running editor server never exits, and there a file's reports already show which mode it was linted in.
 */
const run: { typedFileSeen: boolean; ruleOnUntypedFile?: string; missingApisWarned?: boolean } = {
  typedFileSeen: false,
};

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
  const number = checker.getNumberType();
  // getBigIntType() came with TypeScript 5.1; typescript-eslint 8 runs on TypeScript from 4.8.4.
  const bigint = (checker as Partial<Pick<ts.TypeChecker, 'getBigIntType'>>).getBigIntType?.();
  return (
    parts.length > 0 &&
    parts.every(
      (part) =>
        checker.isTypeAssignableTo(part, number) ||
        (bigint === undefined ? isBigIntBefore51(part, checker) : checker.isTypeAssignableTo(part, bigint)),
    )
  );
}

/**
 * `ts.TypeFlags.BigInt | ts.TypeFlags.BigIntLiteral` as TypeScript 3.3 to 5.9 number them (6.0 renumbered its
 * flags), spelled out: the flags are values of the compiler, which plugin code does not load.
 */
const BIGINT_LIKE_TYPE_FLAGS_BEFORE_5_1 = (1 << 6) | (1 << 11);

/**
 * Whether `type` is assignable to `bigint`, on a TypeScript before 5.1, whose checker cannot name that type: it is
 * `bigint` or a bigint literal, an intersection with one (a branded token), or constrained to one (`T extends bigint`).
 */
function isBigIntBefore51(type: ts.Type, checker: ts.TypeChecker): boolean {
  if ((type.flags & BIGINT_LIKE_TYPE_FLAGS_BEFORE_5_1) !== 0) {
    return true;
  }
  if (type.isIntersection()) {
    return type.types.some((part) => isBigIntBefore51(part, checker));
  }
  const constraint = checker.getBaseConstraintOfType(type);
  return constraint !== undefined && constraint !== type && isNumericTokenType(constraint, checker);
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
