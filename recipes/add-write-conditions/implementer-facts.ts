// What the fact reader found of an implementer and its bases: names, flags and the syntax nodes the writer edits
// (doc/adr/0201).
import type { ts as Typescript } from 'ts-morph';
import type { BaseClass } from './storage-resolver.js';

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
