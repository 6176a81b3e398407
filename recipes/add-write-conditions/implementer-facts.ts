// What the fact reader found in a file, as offsets into its text and names, so that neither the shape decision nor
// the text generation ever sees a syntax tree (doc/adr/0201).

/** One implementer of `CheckpointStorage`: a class, or an object literal standing where a storage is expected. */
export interface ImplementerFacts {
  /** `path#offset`. */
  readonly id: string;
  readonly file: string;
  readonly kind: 'class' | 'object-literal';
  /** The class name, or the variable the object literal is assigned to. */
  readonly name: string;
  readonly line: number;
  readonly isAbstract: boolean;
  readonly base: BaseFacts | undefined;
  readonly ownSave: SaveFacts | undefined;
  readonly ownWriteVersion: boolean;
  /** Member names of the implementer and its known ancestors, so that a new name cannot collide. */
  readonly memberNames: readonly string[];
  /** A literal with a spread or computed key: a `writeVersion` may come from there, so none is added. */
  readonly membersMayComeFromElsewhere: boolean;
  /** The id parameter name its `read`, `writeVersion` or `delete` uses, for generated members. */
  readonly idParameterName: string | undefined;
  /** The `save` of every `super.save` in the class: renamed along with the base's, to keep reaching its write. */
  readonly superSaveNames: readonly Range[];
  /** The class writes `public` on its storage members, so generated ones carry it too. */
  readonly explicitlyPublic: boolean;
  readonly body: BodyFacts;
}

/** `[start, end)` offsets into a file's text. */
export interface Range {
  readonly start: number;
  readonly end: number;
}

/**
 * The class an implementer extends: another implementer (its decision says what this one inherits; the summary stands
 * in when it is outside the run), a plain class, or one the reader cannot see into.
 */
export type BaseFacts =
  | ({ readonly kind: 'implementer'; readonly id: string } & ChainSummary)
  | ({ readonly kind: 'plain' } & ChainSummary)
  | { readonly kind: 'unknown'; readonly name: string; readonly where: 'another-file' | 'another-package' };

/** A base class chain as far as it can be seen. */
export interface ChainSummary {
  readonly name: string;
  /** Its `save` has three parameters or more; `undefined` without a `save`. */
  readonly saveAcceptsCondition: boolean | undefined;
  readonly saveIsAsync: boolean;
  /** The `save` is a field: an own property that no method of a subclass can override. */
  readonly saveIsField: boolean;
  readonly hasWriteVersion: boolean;
}

/** An existing `save` member. */
export interface SaveFacts {
  /** Three or more parameters, or a rest parameter: it already receives the condition. */
  readonly acceptsCondition: boolean;
  /**
   * `arrow` and `function` are fields or properties holding one (an arrow keeps `this` bound); `value` is a property
   * whose function is written elsewhere (`save: saveRow`); `accessor` is `get save()`.
   */
  readonly form: 'method' | 'abstract-method' | 'arrow' | 'function' | 'value' | 'accessor';
  readonly hasOverloads: boolean;
  /** These four, as written, carry over to a generated sibling (`<T>`, `this: Table`, `public readonly `). */
  readonly typeParameters: string | undefined;
  readonly thisParameter: string | undefined;
  readonly returnType: string | undefined;
  readonly modifiers: string;
  /** In JavaScript: the `@returns` type of its JSDoc. */
  readonly jsDocReturnType: string | undefined;
  /** From the first `@` to the token after the last decorator: they move to the generated `save`, keyed on its name. */
  readonly decorators: Range | undefined;
  /** `override ` with its whitespace, dropped when the member is renamed to a name no base has. */
  readonly overrideKeyword: Range | undefined;
  readonly isAsync: boolean;
  readonly parameters: readonly ParameterFacts[];
  readonly start: number;
  readonly end: number;
  /** Where the comments directly above the member begin. */
  readonly commentsStart: number;
  readonly name: Range;
  readonly parameterList: ParameterListFacts | undefined;
  readonly body:
    | { readonly kind: 'block'; readonly open: number; readonly close: number }
    | { readonly kind: 'expression'; readonly start: number; readonly end: number }
    | undefined;
}

/** One parameter of an existing member. */
export interface ParameterFacts {
  readonly name: string | undefined;
  readonly type: string | undefined;
  readonly text: string;
  /** In JavaScript: the type its JSDoc `@param` tag gives it. */
  readonly jsDocType: string | undefined;
}

/** Offsets of a parameter list, for adding a parameter in place. */
export interface ParameterListFacts {
  /** Offset of `(`; `undefined` for an arrow's single unparenthesised parameter. */
  readonly open: number | undefined;
  /** Offset of `)`, or the end of the single unparenthesised parameter. */
  readonly close: number;
  readonly firstParameterStart: number | undefined;
  /** After the last parameter's trailing comma when it has one. */
  readonly lastParameterEnd: number | undefined;
  readonly trailingComma: boolean;
}

/** A class body or object literal; `lastMemberEnd` is after a literal's trailing comma, indents are leading whitespace. */
export interface BodyFacts {
  readonly openBrace: number;
  readonly closeBrace: number;
  readonly lastMemberEnd: number | undefined;
  readonly lastMemberHasComma: boolean;
  /** Empty without members. */
  readonly memberIndent: string;
  /** Of the line the body opens on. */
  readonly outerIndent: string;
}

/** How a file imports from `checkpoint-fencing`, so that new names are merged rather than duplicated. */
export interface ImportFacts {
  readonly declarations: readonly ImportDeclarationFacts[];
  /** After the last import, else after the directive prologue, else before the first statement and its comments. */
  readonly insertNewImportAt: number;
  readonly insertAfter: 'import' | 'directive' | undefined;
  /** Types are written (TypeScript), or JSDoc instead (JavaScript). */
  readonly typescript: boolean;
  /**
   * `require` in a CommonJS JavaScript file, where `import` is a syntax error; `import-equals` (`import x =
   * require(…)`) in a TypeScript file in CommonJS syntax, where `verbatimModuleSyntax` forbids `import { X }`.
   */
  readonly newImportSyntax: 'import' | 'require' | 'import-equals';
  /** A name the file does not use, for an `import x = require(…)` it may get. */
  readonly freeNamespaceName: string;
}

/** One `import … from 'checkpoint-fencing'`, `import x = require(…)` or `const … = require(…)`. */
export interface ImportDeclarationFacts {
  readonly syntax: 'import' | 'require';
  readonly typeOnly: boolean;
  /** The local name of `import * as name`, `import name = require(…)` or `const name = require(…)`. */
  readonly namespace: string | undefined;
  /** `text` is the specifier as written, e.g. `type CheckpointStorage as Store`. */
  readonly named: readonly { imported: string; local: string; typeOnly: boolean; text: string }[];
  /** Offsets of `{` and `}` around the named imports. */
  readonly braces: { readonly open: number; readonly close: number } | undefined;
  /** After the last named import and its trailing comma. */
  readonly lastSpecifierEnd: number | undefined;
  readonly trailingComma: boolean;
  readonly start: number;
  readonly end: number;
}
