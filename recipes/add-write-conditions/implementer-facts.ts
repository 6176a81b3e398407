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
  readonly body: BodyFacts;
}

/** The class an implementer extends. */
export type BaseFacts =
  /** Another implementer found in this run; its own decision determines what this one inherits. */
  | { readonly kind: 'implementer'; readonly id: string }
  /** A class that does not implement `CheckpointStorage` itself, summarised over its whole chain. */
  | {
      readonly kind: 'plain';
      readonly name: string;
      readonly saveParameterCount: number | undefined;
      readonly hasWriteVersion: boolean;
    }
  /** A class the front end cannot see into (declared in another file, for the syntactic front end). */
  | { readonly kind: 'unknown'; readonly name: string };

/** An existing `save` member. */
export interface SaveFacts {
  readonly parameterCount: number;
  /** `method` includes getters' siblings such as overload lists; `property` is an arrow or function-valued field. */
  readonly form: 'method' | 'abstract-method' | 'property';
  /** Offset of the member's first token (after its leading comments). */
  readonly start: number;
  readonly end: number;
  readonly nameStart: number;
  readonly nameEnd: number;
  /** Ranges of the `save` name in `super.save` accesses inside the member, renamed along with it. */
  readonly superSaveNames: readonly { readonly start: number; readonly end: number }[];
  /**
   * For object-literal members only: the member written as a function expression that can be called in place of
   * it, e.g. `async (id: string, cp: string) => { … }` for a method `async save(id: string, cp: string) { … }`.
   */
  readonly asFunctionExpression?: string;
  /**
   * Whether `asFunctionExpression` needs `.call(this, …)` to keep `this` (a `function` expression that uses it).
   * Otherwise it is called directly, which lets TypeScript type its untyped parameters from the arguments.
   */
  readonly needsThisBinding?: boolean;
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
  /** Offset just after the last import declaration, or the offset of the first statement when there is none. */
  readonly insertNewImportAt: number;
  /** Whether `insertNewImportAt` is the end of an import declaration (so a new import goes on the next line). */
  readonly afterImport: boolean;
  /** Whether the file is TypeScript (types are written) or JavaScript (JSDoc instead). */
  readonly typescript: boolean;
}

/** One `import … from 'checkpoint-fencing'` declaration. */
export interface ImportDeclarationFacts {
  readonly typeOnly: boolean;
  /** The local name of `import * as name` or `import name = require(…)`. */
  readonly namespace: string | undefined;
  readonly named: readonly { readonly imported: string; readonly local: string; readonly typeOnly: boolean }[];
  /** Offset just after the last named import (after its comma when it has a trailing one); undefined without braces. */
  readonly lastSpecifierEnd: number | undefined;
  /** Whether the last named import is followed by a comma. */
  readonly trailingComma: boolean;
  /** Offset just after the declaration (after its semicolon when it has one). */
  readonly end: number;
}
