import type { ts as Typescript } from 'ts-morph';
import { ts } from './typescript.js';
import type { StorageMemberName } from '../../vocabulary/index.js';
import type { FileFacts, ImplementerFacts, SaveFacts } from './upgrade-data.js';
import { readImportFacts } from './read-import-facts.js';
import { importBindings, isJavaScriptFile, jsDocComments, type StorageResolver } from './storage-resolver.js';
import { upgradeMessages } from './upgrade-messages.js';

const SAVE: StorageMemberName = 'save';
const WRITE_VERSION: StorageMemberName = 'writeVersion';
/** Members whose first parameter names the id, in the order their name is preferred for generated members. */
const ID_TAKING_MEMBERS: readonly StorageMemberName[] = ['read', 'writeVersion', 'delete'];

type Member = Typescript.ClassElement | Typescript.ObjectLiteralElementLike;
type Container = Typescript.ClassLikeDeclaration | Typescript.ObjectLiteralExpression;

/** Every implementer of `CheckpointStorage` in `sourceFile`, `resolver` asked what syntax cannot tell (ADR 0204). */
export function readImplementerFacts(
  sourceFile: Typescript.SourceFile,
  resolver: StorageResolver,
  commonJsOnly = false,
): FileFacts {
  const classes: ImplementerFacts[] = [];
  const literals: ImplementerFacts[] = [];
  const visit = (node: Typescript.Node): void => {
    const facts = ts.isClassLike(node)
      ? implementerFacts(node, node.name?.text ?? 'default export class', resolver)
      : undefined;
    if (facts?.implements === true) {
      classes.push(facts);
    } else if (ts.isObjectLiteralExpression(node)) {
      const name = storageLiteralName(node, resolver);
      if (name !== undefined) {
        literals.push(implementerFacts(node, name, resolver));
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return {
    path: sourceFile.fileName,
    text: sourceFile.text,
    implementers: [...classes, ...literals],
    imports: readImportFacts(sourceFile, commonJsOnly),
  };
}

/** The error for a file that does not parse: where (1-based line and column) and the parser's reason. */
export function syntaxError(sourceFile: Typescript.SourceFile, problem: Typescript.Diagnostic): Error {
  const { line, character } = sourceFile.getLineAndCharacterOfPosition(problem.start ?? 0);
  const reason = ts.flattenDiagnosticMessageText(problem.messageText, ' ');
  return new Error(upgradeMessages.doesNotParse(sourceFile.fileName, line + 1, character + 1, reason));
}

/** `implements` clauses, and in JavaScript the JSDoc `@implements` tags. */
function implementedTypes(declaration: Typescript.ClassLikeDeclaration): Typescript.ExpressionWithTypeArguments[] {
  const clauses = (declaration.heritageClauses ?? []).filter((c) => c.token === ts.SyntaxKind.ImplementsKeyword);
  const comments = isJavaScriptFile(declaration.getSourceFile()) ? jsDocComments(declaration) : [];
  const tags = comments.flatMap((comment) => comment.tags ?? []).filter(ts.isJSDocImplementsTag);
  return [...clauses.flatMap((clause) => clause.types), ...tags.map((tag) => tag.class)];
}

/**
 * The name of an object literal where a storage is expected: a variable of that type, `satisfies`, `as`, a factory's
 * return, their JSDoc spellings, or, with a `save`, any context that types it as one; else `undefined`.
 */
function storageLiteralName(
  literal: Typescript.ObjectLiteralExpression,
  resolver: StorageResolver,
): string | undefined {
  const javascript = isJavaScriptFile(literal.getSourceFile());
  let position: Typescript.Node = literal;
  let cast: Typescript.TypeNode | undefined;
  while (ts.isParenthesizedExpression(position.parent)) {
    position = position.parent;
    cast ??= javascript ? ts.getJSDocType(position) : undefined;
  }
  const declared = cast ?? declaredType(position, javascript);
  const isStorage =
    declared !== undefined
      ? resolver.isStorageType(declared)
      : literal.properties.some((property) => memberName(property) === SAVE) && resolver.isContextuallyStorage(literal);
  if (!isStorage) {
    return undefined;
  }
  const holder = ts.findAncestor(
    literal.parent,
    (node): node is Typescript.NamedDeclaration & { readonly name: Typescript.Identifier } =>
      (ts.isVariableDeclaration(node) ||
        ts.isFunctionDeclaration(node) ||
        ts.isMethodDeclaration(node) ||
        ts.isPropertyAssignment(node)) &&
      node.name !== undefined &&
      ts.isIdentifier(node.name),
  );
  return holder?.name.text ?? 'object literal';
}

/** The type the position of an expression declares for it: a variable's, an assertion's, a factory's return type. */
function declaredType(position: Typescript.Node, javascript: boolean): Typescript.TypeNode | undefined {
  const parent = position.parent;
  if (ts.isVariableDeclaration(parent) && parent.initializer === position) {
    const jsDoc = javascript
      ? (ts.getJSDocType(parent) ?? ts.getJSDocSatisfiesTag(parent)?.typeExpression.type)
      : undefined;
    return parent.type ?? jsDoc;
  }
  if (ts.isSatisfiesExpression(parent) || ts.isAsExpression(parent) || ts.isTypeAssertionExpression(parent)) {
    return parent.type;
  }
  const factory = ts.isReturnStatement(parent)
    ? ts.findAncestor(parent, ts.isFunctionLike)
    : ts.isArrowFunction(parent) && parent.body === position
      ? parent
      : undefined;
  // `Promise<T>` unwrapped to `T`, for async factories.
  const type = factory?.type;
  return type && ts.isTypeReferenceNode(type) && type.typeName.getText() === 'Promise' ? type.typeArguments?.[0] : type;
}

/** A member's static name: an identifier or a string literal, plain or in brackets; `undefined` when computed. */
export function memberName(member: Member): string | undefined {
  const name =
    member.name !== undefined && ts.isComputedPropertyName(member.name) ? member.name.expression : member.name;
  return name !== undefined && (ts.isStringLiteralLike(name) || (ts.isIdentifier(name) && name === member.name))
    ? name.text
    : undefined;
}

function hasModifier(node: Typescript.Node, kind: Typescript.SyntaxKind): boolean {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((modifier) => modifier.kind === kind);
}

function membersOf(container: Container): Member[] {
  return ts.isObjectLiteralExpression(container) ? [...container.properties] : [...container.members];
}

/** The members named `name` of a literal, or the instance members of a class: a method's overloads among them. */
function membersNamed(container: Container, name: string): Member[] {
  return membersOf(container).filter(
    (member) =>
      memberName(member) === name &&
      (ts.isObjectLiteralExpression(container) ||
        ((ts.isMethodDeclaration(member) || ts.isPropertyDeclaration(member) || ts.isAccessor(member)) &&
          !hasModifier(member, ts.SyntaxKind.StaticKeyword))),
  );
}

/** The member named `name`; among overloads, the one with a body. */
function memberNamed(container: Container, name: string): Member | undefined {
  const members = membersNamed(container, name);
  return members.find((member) => !ts.isMethodDeclaration(member) || member.body !== undefined) ?? members[0];
}

/**
 * The facts of a class or literal, and whether it or a class it extends implements `CheckpointStorage`. Its base is
 * read the same way; `below`, the classes read on the way up, ends a cycle of `extends`, which the decision reports.
 */
function implementerFacts(
  node: Container,
  name: string,
  resolver: StorageResolver,
  below: readonly Container[] = [],
): ImplementerFacts & { readonly implements: boolean } {
  const literal = ts.isObjectLiteralExpression(node);
  const beyond = literal ? undefined : resolver.baseClassOf(node);
  const base = beyond?.kind === 'visible' && !below.includes(beyond.declaration) ? beyond.declaration : undefined;
  const parent = base && implementerFacts(base, base.name?.text ?? 'an anonymous class', resolver, [...below, node]);
  return {
    implements:
      literal || parent?.implements === true || implementedTypes(node).some((type) => resolver.isStorageType(type)),
    id: `${node.getSourceFile().fileName}#${node.getStart()}`,
    file: node.getSourceFile().fileName,
    kind: literal ? 'object-literal' : 'class',
    name,
    line: lineOf(node),
    isAbstract: hasModifier(node, ts.SyntaxKind.AbstractKeyword),
    // An unknown class anywhere above leaves what is inherited unknown.
    base: beyond?.kind === 'unknown' ? beyond : parent?.base?.kind === 'unknown' ? parent.base : parent,
    ownSave: saveFacts(node),
    // Declared, or assigned by a statement of the constructor; in a literal, maybe brought by a spread or a computed key.
    ownWriteVersion:
      memberNamed(node, WRITE_VERSION) !== undefined ||
      (literal
        ? node.properties.some((m) => ts.isSpreadAssignment(m) || memberName(m) === undefined)
        : constructorWrites(node, WRITE_VERSION).assigned !== undefined),
    unfollowedConstructorWrite: literal
      ? undefined
      : [SAVE, WRITE_VERSION].flatMap((member) => {
          const at = constructorWrites(node, member).unfollowed;
          return at === undefined ? [] : [upgradeMessages.assignedInConstructorBranch(member, place(at))];
        })[0],
    memberNames: [...membersOf(node).flatMap((m) => memberName(m) ?? []), ...(parent?.memberNames ?? [])],
    idParameterName: ID_TAKING_MEMBERS.map((wanted) => parametersOf(functionOf(memberNamed(node, wanted)))[0])
      .find((parameter) => parameter !== undefined && ts.isIdentifier(parameter.name))
      ?.name.getText()
      .replace(/^_+(?=.)/, ''),
    superSaveNames: literal ? [] : superSaveNames(node),
    explicitlyPublic: [SAVE, ...ID_TAKING_MEMBERS]
      .flatMap((wanted) => membersNamed(node, wanted))
      .some((member) => hasModifier(member, ts.SyntaxKind.PublicKeyword)),
    node,
  };
}

/** The function a member is or holds (see {@link valueOf}), or the plain method bound to it (`this.m.bind(this)`). */
function functionOf(member: Member | undefined): Typescript.FunctionLikeDeclaration | undefined {
  if (member === undefined || ts.isMethodDeclaration(member)) {
    return member;
  }
  const value = valueOf(member);
  return value && (ts.isArrowFunction(value) || ts.isFunctionExpression(value) ? value : boundMethod(member, value));
}

/** What a field or property holds, parentheses off: its initialiser, or what the class's constructor assigns it. */
function valueOf(member: Member): Typescript.Expression | undefined {
  let value = ts.isPropertyDeclaration(member) || ts.isPropertyAssignment(member) ? member.initializer : undefined;
  if (value === undefined && (ts.isPropertyDeclaration(member) || ts.isConstructorDeclaration(member))) {
    value = constructorWrites(member.parent, memberName(member) ?? SAVE).sole;
  }
  while (value !== undefined && ts.isParenthesizedExpression(value)) {
    value = value.expression;
  }
  return value;
}

function isThis(node: Typescript.Node | undefined): boolean {
  return node?.kind === ts.SyntaxKind.ThisKeyword;
}

/**
 * The value of the constructor's first statement `this.<name> = …`, and the first write it cannot follow: a second
 * such statement, one in a branch or callback, a compound assignment, an `Object.assign(this, …)` that may write it.
 */
function constructorWrites(
  declaration: Typescript.ClassLikeDeclaration,
  name: string,
): {
  readonly assigned: Typescript.Expression | undefined;
  /** `assigned`, when the constructor writes it nowhere else. */
  readonly sole: Typescript.Expression | undefined;
  readonly unfollowed: Typescript.Node | undefined;
} {
  const body = declaration.members.find(ts.isConstructorDeclaration)?.body;
  const writesName = (target: Typescript.Expression): boolean =>
    (ts.isPropertyAccessExpression(target) && isThis(target.expression) && target.name.text === name) ||
    (ts.isElementAccessExpression(target) &&
      isThis(target.expression) &&
      (!ts.isStringLiteralLike(target.argumentExpression) || target.argumentExpression.text === name));
  // `Object.assign(this, …)`, unless from object literals only, whose names are all known and none of them `name`.
  const assignsName = ({ expression, arguments: [target, ...sources] }: Typescript.CallExpression): boolean =>
    expression.getText() === 'Object.assign' &&
    isThis(target) &&
    sources.some(
      (source) =>
        !ts.isObjectLiteralExpression(source) ||
        source.properties.some((property) => [undefined, name].includes(memberName(property))),
    );
  const writes: Typescript.Node[] = [];
  const visit = (node: Typescript.Node): void => {
    const assignment =
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment &&
      node.operatorToken.kind <= ts.SyntaxKind.LastAssignment;
    if ((assignment && writesName(node.left)) || (ts.isCallExpression(node) && assignsName(node))) {
      writes.push(node);
    }
    // A class inside has its own `this`.
    if (!ts.isClassLike(node)) {
      ts.forEachChild(node, visit);
    }
  };
  if (body !== undefined) {
    ts.forEachChild(body, visit);
  }
  const followed = (write: Typescript.Node): write is Typescript.BinaryExpression =>
    ts.isBinaryExpression(write) &&
    write.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
    ts.isPropertyAccessExpression(write.left) &&
    ts.isExpressionStatement(write.parent) &&
    write.parent.parent === body;
  const [first, second] = writes.filter(followed);
  const unfollowed = writes.find((write) => !followed(write)) ?? second;
  return { assigned: first?.right, sole: unfollowed === undefined ? first?.right : undefined, unfollowed };
}

function lineOf(node: Typescript.Node): number {
  return node.getSourceFile().getLineAndCharacterOfPosition(node.getStart()).line + 1;
}

/** Where a node is, as `file:line`. */
function place(node: Typescript.Node): string {
  return `${node.getSourceFile().fileName}:${lineOf(node)}`;
}

/** For `this.m.bind(this)`, the method `m` of the same class when it is a plain one: with a body and no overloads. */
function boundMethod(member: Member, value: Typescript.Expression): Typescript.MethodDeclaration | undefined {
  const callee =
    ts.isCallExpression(value) && value.arguments.length === 1 && isThis(value.arguments[0]) && value.expression;
  const target = callee && ts.isPropertyAccessExpression(callee) && callee.name.text === 'bind' && callee.expression;
  const bound = target && ts.isPropertyAccessExpression(target) && isThis(target.expression) && target.name.text;
  const [method, ...overloads] = bound && ts.isClassLike(member.parent) ? membersNamed(member.parent, bound) : [];
  return method && overloads.length === 0 && ts.isMethodDeclaration(method) && method.body ? method : undefined;
}

/** What a `save` holding no function here (`save: saveRow`) is assigned from, as a phrase for the skip reason. */
function assignedFrom(member: Member): string {
  const value = valueOf(member);
  if (value === undefined) {
    return `declared at ${place(member)} without one function assigned to it in the class's constructor`;
  }
  const origin = ts.isIdentifier(value) ? originOf(value) : undefined;
  return `assigned from \`${value.getText()}\`${origin === undefined ? '' : ` (${origin})`} at ${place(value)}`;
}

/** Where a name used as a value comes from, when it is a parameter or an import: the place to add the condition. */
function originOf(name: Typescript.Identifier): string | undefined {
  const named = (declaration: Typescript.NamedDeclaration): boolean =>
    declaration.name !== undefined && ts.isIdentifier(declaration.name) && declaration.name.text === name.text;
  const scope = ts.findAncestor(
    name,
    (node): node is Typescript.SignatureDeclaration => ts.isFunctionLike(node) && node.parameters.some(named),
  );
  if (scope !== undefined) {
    const owner = ts.isConstructorDeclaration(scope) ? 'the constructor' : scope.name?.getText();
    return `a parameter of ${owner ?? 'the function around it'}`;
  }
  const imported = name
    .getSourceFile()
    .statements.map(importBindings)
    .find((bindings) =>
      [bindings?.defaultName, bindings?.namespace, ...(bindings?.named ?? []).map(({ local }) => local)].includes(
        name.text,
      ),
    );
  return imported === undefined ? undefined : `imported from '${imported.specifier}'`;
}

function isThisParameter(parameter: Typescript.ParameterDeclaration): boolean {
  return ts.isIdentifier(parameter.name) && parameter.name.text === 'this';
}

function parametersOf(fn: Typescript.FunctionLikeDeclaration | undefined): Typescript.ParameterDeclaration[] {
  return (fn?.parameters ?? []).filter((parameter) => !isThisParameter(parameter));
}

/** The `save` declared, or else a class's constructor, when that is where `this.save` is set. */
function saveFacts(container: Container): SaveFacts | undefined {
  const member =
    memberNamed(container, SAVE) ??
    (ts.isClassLike(container) && constructorWrites(container, SAVE).sole !== undefined
      ? container.members.find(ts.isConstructorDeclaration)
      : undefined);
  if (member === undefined) {
    return undefined;
  }
  const fn = functionOf(member);
  const parameters = parametersOf(fn);
  const form = ts.isMethodDeclaration(member)
    ? member.body === undefined && hasModifier(member, ts.SyntaxKind.AbstractKeyword)
      ? 'abstract-method'
      : 'method'
    : ts.isAccessor(member)
      ? 'accessor'
      : fn === undefined
        ? 'value'
        : ts.isArrowFunction(fn)
          ? 'arrow'
          : 'function';
  return {
    member,
    fn,
    assigned:
      fn !== undefined &&
      (ts.isConstructorDeclaration(member) ||
        (ts.isPropertyDeclaration(member) && (!member.initializer || ts.isMethodDeclaration(fn)))),
    unsupported:
      form === 'value'
        ? upgradeMessages.saveIsValue(assignedFrom(member))
        : form === 'accessor'
          ? upgradeMessages.saveIsAccessor()
          : ts.isClassLike(member.parent) && membersNamed(member.parent, SAVE).length > 1
            ? upgradeMessages.saveHasOverloads()
            : undefined,
    acceptsCondition: parameters.length >= 3 || parameters.some((parameter) => parameter.dotDotDotToken !== undefined),
    form,
    isAsync: fn !== undefined && hasModifier(fn, ts.SyntaxKind.AsyncKeyword),
    isDecorated: ts.canHaveDecorators(member) && (ts.getDecorators(member) ?? []).length > 0,
    isOverride: hasModifier(member, ts.SyntaxKind.OverrideKeyword),
    parameters,
  };
}

/** The name of every `super.save` and `super['save']` in the instance members of a class. */
function superSaveNames(declaration: Typescript.ClassLikeDeclaration): ImplementerFacts['superSaveNames'] {
  const found: (Typescript.Identifier | Typescript.StringLiteralLike)[] = [];
  const visit = (node: Typescript.Node): void => {
    const access = node.kind === ts.SyntaxKind.SuperKeyword ? node.parent : undefined;
    const name =
      access !== undefined && ts.isPropertyAccessExpression(access)
        ? access.name
        : access !== undefined && ts.isElementAccessExpression(access)
          ? access.argumentExpression
          : undefined;
    if (name !== undefined && (ts.isIdentifier(name) || ts.isStringLiteralLike(name)) && name.text === SAVE) {
      found.push(name);
    }
    // In a nested class or an object literal's method, `super` means another prototype.
    if (!ts.isClassLike(node) && !(ts.isObjectLiteralExpression(node.parent) && ts.isFunctionLike(node))) {
      ts.forEachChild(node, visit);
    }
  };
  declaration.members
    .filter((member) => !hasModifier(member, ts.SyntaxKind.StaticKeyword) && !ts.isClassStaticBlockDeclaration(member))
    .forEach((member) => ts.forEachChild(member, visit));
  return found;
}
