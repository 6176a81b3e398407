// The plain data the upgrade's steps hand on (doc/adr/0201): the facts the readers find (names, flags and the syntax
// nodes the writer edits), the decision for each implementer, and the text edits that carry it out. It imports no
// step, so read, decide, write and the front ends that run them all depend on it and on nothing above them.
import type { ts as Typescript } from 'ts-morph';

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
  /** The class it extends, read as an implementer is (`implements` tells whether it is one), or one out of sight. */
  readonly base:
    (ImplementerFacts & { readonly implements: boolean }) | Extract<BaseClass, { kind: 'unknown' }> | undefined;
  readonly ownSave: SaveFacts | undefined;
  /** Declared, assigned by a statement of the class's constructor, or maybe in what is spread into a literal. */
  readonly ownWriteVersion: boolean;
  /** Why the class is left alone: its constructor writes `save` or `writeVersion` in a way the recipe cannot follow. */
  readonly unfollowedConstructorWrite: string | undefined;
  /** Member names of the implementer and its known ancestors, so that a new name cannot collide. */
  readonly memberNames: readonly string[];
  /** The id parameter name its `read`, `writeVersion` or `delete` uses, for generated members. */
  readonly idParameterName: string | undefined;
  /** The `save` of every `super.save` or `super['save']` in the class: renamed with the base's, to keep reaching it. */
  readonly superSaveNames: readonly (Typescript.Identifier | Typescript.StringLiteralLike)[];
  /** The class writes `public` on its storage members, so generated ones carry it too. */
  readonly explicitlyPublic: boolean;
  /** The class or object literal itself: the writer adds members to its body. */
  readonly node: Typescript.ClassLikeDeclaration | Typescript.ObjectLiteralExpression;
}

/** An existing `save` member; the writer copies and edits its text through `member` and `fn`. */
export interface SaveFacts {
  /** The member; for a `save` the constructor assigns without a declaration, the constructor. */
  readonly member: Typescript.ClassElement | Typescript.ObjectLiteralElementLike;
  /** The function it is or holds; `undefined` for a `value` or an `accessor`. */
  readonly fn: Typescript.FunctionLikeDeclaration | undefined;
  /** `fn` is assigned in the constructor or is a method bound there (`this.persist.bind(this)`): it takes the condition. */
  readonly assigned: boolean;
  /** Why no generated member can wrap it (a value, an accessor, overloads). */
  readonly unsupported: string | undefined;
  /** Three or more parameters, or a rest parameter. */
  readonly acceptsCondition: boolean;
  /** `arrow`/`function`: a field holding one (a bound method is a `function`); `value`: one holding another value. */
  readonly form: 'method' | 'abstract-method' | 'arrow' | 'function' | 'value' | 'accessor';
  readonly isDecorated: boolean;
  /** Written with `override`, which a rename to a name no base has drops. */
  readonly isOverride: boolean;
  readonly isAsync: boolean;
  /** Its parameters but a `this` parameter. */
  readonly parameters: readonly Typescript.ParameterDeclaration[];
}

/** How a file imports from `checkpoint-fencing`: how generated code spells the names it needs, where imports go. */
export interface ImportFacts {
  /** Types are written (TypeScript), or JSDoc instead (JavaScript). */
  readonly typescript: boolean;
  readonly names: GeneratedNames;
  /** Which of {@link names} need an import once generated code uses them. */
  readonly missing: { readonly conditionType: boolean; readonly unsupportedError: boolean };
  /** The `import x = require(…)` a TypeScript file in CommonJS syntax gets: names then go through `x`. */
  readonly newNamespace: string | undefined;
  /** The value import to merge names into, and the type-only one for the condition type. */
  readonly valueImport: NamedImportList | undefined;
  readonly typeImport: NamedImportList | undefined;
  /** After the last import, else after the directive prologue, else before the first statement and its comments. */
  readonly newImport: { readonly at: number; readonly after: 'import' | 'directive' | undefined };
  /** `require` in a CommonJS JavaScript file, where `import` is a syntax error. */
  readonly newImportSyntax: 'import' | 'require';
}

/** How generated code spells the names it needs: as imported (maybe aliased), `ns.Name`, or the export's own name. */
export interface GeneratedNames {
  /** `undefined` in JavaScript, where no type is written. */
  readonly conditionType: string | undefined;
  readonly unsupportedError: string;
}

/** The `{ … }` of an import or `const { … } = require(…)`, with at least one name. */
export type NamedImportList = Typescript.NamedImports | Typescript.ObjectBindingPattern;

/** The class a class extends, as far as a resolver can see. */
export type BaseClass =
  | { readonly kind: 'none' }
  | { readonly kind: 'visible'; readonly declaration: Typescript.ClassLikeDeclaration }
  /** Declared where the resolver cannot look: another file (the jscodeshift transform), or an unresolved package. */
  | { readonly kind: 'unknown'; readonly name: string; readonly where: 'another-file' | 'another-package' };

/** What one file holds: its implementers of `CheckpointStorage` and its imports from checkpoint-fencing. */
export interface FileFacts {
  readonly path: string;
  /** The text offsets refer to, as the parser read it (without a byte order mark). */
  readonly text: string;
  readonly implementers: readonly ImplementerFacts[];
  readonly imports: ImportFacts;
}

/**
 * The shape of `save` written for an implementer (doc/adr/0202, 0205): `delegating` keeps its own two-parameter `save`
 * under a new name and sends `any()` to it, `follows-base` renames its own as an implementing base's was, `inherited`
 * sends `any()` to a plain base's `super.save`, `object-literal` and `constructor-assigned` (the instance's own `save`,
 * which shadows any base's) take the condition in place, `refusing` (no two-parameter `save` anywhere) refuses every
 * write; `unchanged`: `save` already takes a condition, or a subclass provides it.
 */
export type SaveShape =
  'delegating' | 'object-literal' | 'constructor-assigned' | 'inherited' | 'refusing' | 'follows-base' | 'unchanged';

/** What to do with one implementer. */
export interface UpgradeDecision {
  readonly implementer: ImplementerFacts;
  readonly saveShape: SaveShape;
  /** The new name of the existing two-parameter `save` (`delegating` and `follows-base`). */
  readonly unconditionalSaveName: string | undefined;
  /** The generated `save` overrides an inherited one (`override`). */
  readonly saveOverrides: boolean;
  /** The generated `save` is `async`, as the `save` it wraps is; a refusing one never is. */
  readonly saveIsAsync: boolean;
  readonly addWriteVersion: boolean;
  /** An arrow field when every unconditional write it may call is one, else a method or a field like the class's own. */
  readonly saveMember: 'method' | 'arrow-field' | 'function-field';
  /** Set when a base renamed its `save`: every `super.save` in this class is renamed to this. */
  readonly superSaveRename: string | undefined;
  /** Set when the implementer is left alone because the recipe cannot decide safely. */
  readonly skipReason: string | undefined;
}

/** One replacement in a file's text: `[start, end)` becomes `text`; an insertion has `start === end`. */
export interface TextEdit {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/** A file's text after the upgrade, and the `[start, end)` ranges of it the upgrade wrote, in order. */
export interface UpgradedText {
  readonly text: string;
  readonly inserted: readonly (readonly [number, number])[];
}

/** Dependencies, build output, declarations: never changed; tested relative to the project, which may be in dist. */
export const NEVER_TOUCHED = /(?:^|[\\/])(?:node_modules|dist)[\\/]|\.d\.[mc]?ts$|\.d\.[^\\/]*\.ts$/;
