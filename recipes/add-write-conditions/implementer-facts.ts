/**
 * What a front end (type-aware or syntactic) found out about one implementer of `CheckpointStorage`, expressed in
 * offsets into the file's text so that neither the shape decision nor the text generation ever sees a syntax tree.
 */
export interface ImplementerFacts {
  /** Unique within one run, e.g. `path#offset`. */
  readonly id: string;
  readonly file: string;
  readonly kind: 'class' | 'object-literal';
  /** The class name, or the variable the object literal is assigned to. */
  readonly name: string;
  /** 1-based line of the class or object literal. */
  readonly line: number;
  readonly isAbstract: boolean;
  readonly base: BaseFacts | undefined;
  /** The implementer's own `save`, when it declares one. */
  readonly ownSave: SaveFacts | undefined;
  readonly ownWriteVersion: boolean;
  /** Every member name of the implementer and its known ancestors, so that a new name cannot collide. */
  readonly memberNames: readonly string[];
  /**
   * An object literal with a spread or a computed key: members may come from elsewhere, so a missing `writeVersion`
   * is not added (it could replace one the spread provides).
   */
  readonly membersMayComeFromElsewhere: boolean;
  /** The id parameter name its `read`, `writeVersion` or `delete` already uses, for generated members. */
  readonly idParameterName: string | undefined;
  /**
   * Ranges of the `save` name in every `super.save` access of a class body (methods, fields, constructor), renamed
   * when the base's `save` is: a call that meant the base's unconditional write must keep reaching it.
   */
  readonly superSaveNames: readonly Range[];
  /** The class writes `public` on its storage members, so generated ones carry it too (explicit-member-accessibility). */
  readonly explicitlyPublic: boolean;
  readonly body: BodyFacts;
}

/** `[start, end)` offsets into a file's text. */
export interface Range {
  readonly start: number;
  readonly end: number;
}

/** The class an implementer extends. */
export type BaseFacts =
  /**
   * Another implementer; its own decision determines what this one inherits. When it is not part of this run (a
   * path outside the selection), the summary of its chain stands in for that decision.
   */
  | ({ readonly kind: 'implementer'; readonly id: string } & ChainSummary)
  /** A class that does not implement `CheckpointStorage` itself, summarised over its whole chain. */
  | ({ readonly kind: 'plain' } & ChainSummary)
  /**
   * A class the front end cannot see into: declared in another file (the syntactic front end), or in a package whose
   * declarations cannot be found (the type-aware one).
   */
  | { readonly kind: 'unknown'; readonly name: string; readonly where: 'another-file' | 'another-package' };

/** A base class chain as far as it can be seen: its `save` and whether it has `writeVersion`. */
export interface ChainSummary {
  readonly name: string;
  readonly saveParameterCount: number | undefined;
  readonly saveIsAsync: boolean;
  /** The `save` is a field (an arrow or function in a property): an own property no prototype method can override. */
  readonly saveIsField: boolean;
  readonly hasWriteVersion: boolean;
}

/** An existing `save` member. */
export interface SaveFacts {
  /** Three or more parameters, or a rest parameter: the member already receives the condition. */
  readonly acceptsCondition: boolean;
  /**
   * `method` (with a body), `abstract-method`, `property` (an arrow or function expression in a field or property),
   * `value` (a property whose value is not written here, such as `save: saveRow`), or `accessor` (`get save()`).
   */
  readonly form: 'method' | 'abstract-method' | 'property' | 'value' | 'accessor';
  /** The method has overload signatures besides its implementation. */
  readonly hasOverloads: boolean;
  /** Type parameters as written, `<T extends string>`, carried over to a generated sibling. */
  readonly typeParameters: string | undefined;
  /** A `this` parameter as written (`this: Table`): kept when a parameter list is rewritten, and carried over. */
  readonly thisParameter: string | undefined;
  /** In JavaScript: the `@returns` type of its JSDoc, for the JSDoc of a generated sibling. */
  readonly jsDocReturnType: string | undefined;
  /**
   * The member's decorators, from the first `@` to the token after the last one (with the whitespace between):
   * they move to the generated `save`, which takes over the name they are keyed on.
   */
  readonly decorators: Range | undefined;
  /** The `override` keyword and the whitespace after it, dropped when the member is renamed to a name no base has. */
  readonly overrideKeyword: Range | undefined;
  /** For `property`: `arrow` keeps `this` bound to the instance, `function` does not. */
  readonly functionKind: 'method' | 'arrow' | 'function' | undefined;
  readonly isAsync: boolean;
  readonly parameters: readonly ParameterFacts[];
  /** The return type annotation's text, when there is one. */
  readonly returnType: string | undefined;
  /** Accessibility and `readonly` modifiers as written (`public readonly `), repeated on a generated sibling. */
  readonly modifiers: string;
  /** Offset of the member's first token (after its leading comments). */
  readonly start: number;
  readonly end: number;
  /** Offset of the comments directly above the member (JSDoc, line comments), or `start` without any. */
  readonly commentsStart: number;
  readonly nameStart: number;
  readonly nameEnd: number;
  /** Where the parameters are written; absent for `value` members. */
  readonly parameterList: ParameterListFacts | undefined;
  /** The function body; absent for `value` and abstract members. */
  readonly body:
    | { readonly kind: 'block'; readonly open: number; readonly close: number }
    | { readonly kind: 'expression'; readonly start: number; readonly end: number }
    | undefined;
}

/** One parameter of an existing member. */
export interface ParameterFacts {
  /** The binding name, or `undefined` for a destructuring pattern. */
  readonly name: string | undefined;
  /** The type annotation's text, when there is one. */
  readonly type: string | undefined;
  readonly text: string;
  readonly isRest: boolean;
  /** In JavaScript: the type its JSDoc `@param` tag gives it. */
  readonly jsDocType: string | undefined;
}

/** Offsets of a parameter list, for adding a parameter in place. */
export interface ParameterListFacts {
  /** Offset of `(`, or `undefined` for an arrow's single unparenthesised parameter. */
  readonly open: number | undefined;
  /** Offset of `)`, or the end of the single unparenthesised parameter. */
  readonly close: number;
  /** Start of the first parameter, when there is one. */
  readonly firstParameterStart: number | undefined;
  /** End of the last parameter, after its trailing comma when it has one. */
  readonly lastParameterEnd: number | undefined;
  readonly trailingComma: boolean;
}

/** Where a class body or object literal opens and closes, and where its last member ends. */
export interface BodyFacts {
  readonly openBrace: number;
  readonly closeBrace: number;
  /** End offset of the last member, including an object literal's trailing comma when there is one. */
  readonly lastMemberEnd: number | undefined;
  /** For object literals: whether the last member is followed by a comma. */
  readonly lastMemberHasComma: boolean;
  /** Leading whitespace of the members' lines; empty when unknown. */
  readonly memberIndent: string;
  /** Leading whitespace of the line the body opens on. */
  readonly outerIndent: string;
}

/** How a file already imports from `checkpoint-fencing`, so that new names are merged rather than duplicated. */
export interface ImportFacts {
  readonly declarations: readonly ImportDeclarationFacts[];
  /**
   * Offset just after the last import declaration (or `require`), else after the directive prologue, else the offset
   * of the first statement.
   */
  readonly insertNewImportAt: number;
  /** Whether `insertNewImportAt` is the end of an import declaration (so a new import goes on the next line). */
  readonly afterImport: boolean;
  /** Whether `insertNewImportAt` is the end of the directive prologue (`'use strict';`), which must stay first. */
  readonly afterDirective: boolean;
  /** Whether the file is TypeScript (types are written) or JavaScript (JSDoc instead). */
  readonly typescript: boolean;
  /**
   * How a new value import is written: `import` (a module), `require` (`const { X } = require(…)` in a CommonJS
   * JavaScript file, where `import` is a syntax error), or `import-equals` (`import x = require(…)` in a TypeScript
   * file written in CommonJS syntax, where `verbatimModuleSyntax` forbids `import { X }`).
   */
  readonly newImportSyntax: 'import' | 'require' | 'import-equals';
  /** A name the file does not use, for an `import x = require(…)` it may get. */
  readonly freeNamespaceName: string;
}

/** One `import … from 'checkpoint-fencing'` declaration, or a `const … = require('checkpoint-fencing')`. */
export interface ImportDeclarationFacts {
  readonly syntax: 'import' | 'require';
  readonly typeOnly: boolean;
  /** The local name of `import * as name`, `import name = require(…)` or `const name = require(…)`. */
  readonly namespace: string | undefined;
  readonly named: readonly {
    readonly imported: string;
    readonly local: string;
    readonly typeOnly: boolean;
    /** The specifier as written, e.g. `type CheckpointStorage as Store`. */
    readonly text: string;
  }[];
  /** Offsets of `{` and `}` around the named imports; undefined without braces. */
  readonly braces: { readonly open: number; readonly close: number } | undefined;
  /** Offset just after the last named import (after its comma when it has a trailing one); undefined without braces. */
  readonly lastSpecifierEnd: number | undefined;
  /** Whether the last named import is followed by a comma. */
  readonly trailingComma: boolean;
  readonly start: number;
  /** Offset just after the declaration (after its semicolon when it has one). */
  readonly end: number;
}
