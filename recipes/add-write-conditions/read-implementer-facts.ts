import { ts } from 'ts-morph';
import type { StorageMemberName } from '../../vocabulary/index.js';
import type {
  BaseFacts,
  BodyFacts,
  ChainSummary,
  ImplementerFacts,
  ImportFacts,
  ParameterFacts,
  ParameterListFacts,
  Range,
  SaveFacts,
} from './implementer-facts.js';
import { lineIndent } from './source-style.js';
import { readImportFacts } from './read-import-facts.js';
import { isJavaScriptFile, jsDocComments, type StorageResolver } from './storage-resolver.js';
import { upgradeMessages } from './upgrade-messages.js';

const SAVE: StorageMemberName = 'save';
const WRITE_VERSION: StorageMemberName = 'writeVersion';
const STORAGE_MEMBERS: readonly StorageMemberName[] = ['read', 'save', 'delete', 'writeVersion'];
/** Members whose first parameter names the id, in the order their name is preferred for generated members. */
const ID_TAKING_MEMBERS: readonly StorageMemberName[] = ['read', 'writeVersion', 'delete'];

/** What one file holds: its implementers of `CheckpointStorage` and its imports from checkpoint-fencing. */
export interface FileFacts {
  readonly path: string;
  /** The text offsets refer to, as the parser read it (without a byte order mark). */
  readonly text: string;
  readonly implementers: readonly ImplementerFacts[];
  readonly imports: ImportFacts;
}

/**
 * Reads every implementer of `CheckpointStorage` in `sourceFile` into plain facts (offsets into its text, names,
 * parameter lists), asking `resolver` only what the syntax cannot tell: which types are the storage interface and
 * which class a class extends. The one reader both front ends use: the CLI with a type checker behind the resolver,
 * the jscodeshift transform with names in the file. No syntax node escapes it. `commonJsOnly`: the file compiles to
 * CommonJS under `verbatimModuleSyntax` (only a type-aware front end knows), so a value import must be
 * `import x = require(…)`.
 */
export function readImplementerFacts(
  sourceFile: ts.SourceFile,
  resolver: StorageResolver,
  commonJsOnly = false,
): FileFacts {
  const implementerClasses = new Map<ts.ClassLikeDeclaration, boolean>();
  const isImplementer = (declaration: ts.ClassLikeDeclaration): boolean => {
    const known = implementerClasses.get(declaration);
    if (known !== undefined) {
      return known;
    }
    implementerClasses.set(declaration, false);
    const base = resolver.baseClassOf(declaration);
    const result =
      implementedTypes(declaration).some((type) => resolver.isStorageType(type)) ||
      (base.kind === 'visible' && isImplementer(base.declaration));
    implementerClasses.set(declaration, result);
    return result;
  };

  const classes: ts.ClassLikeDeclaration[] = [];
  const literals: { literal: ts.ObjectLiteralExpression; name: string }[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isClassDeclaration(node) || ts.isClassExpression(node)) && isImplementer(node)) {
      classes.push(node);
    } else if (ts.isObjectLiteralExpression(node)) {
      const name = storageLiteralName(node, resolver);
      if (name !== undefined) {
        literals.push({ literal: node, name });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);

  const text = sourceFile.text;
  const context: ReadContext = { sourceFile, text, resolver, isImplementer };
  return {
    path: sourceFile.fileName,
    text,
    implementers: [
      ...classes.map((declaration) => classFacts(declaration, context)),
      ...literals.map(({ literal, name }) => literalFacts(literal, name, context)),
    ],
    imports: readImportFacts(sourceFile, commonJsOnly),
  };
}

interface ReadContext {
  readonly sourceFile: ts.SourceFile;
  readonly text: string;
  readonly resolver: StorageResolver;
  readonly isImplementer: (declaration: ts.ClassLikeDeclaration) => boolean;
}

/** The id facts refer to a class or literal by, unique within one run. */
function implementerId(node: ts.Node): string {
  return `${node.getSourceFile().fileName}#${node.getStart()}`;
}

/** `implements` clauses, and in JavaScript the JSDoc `@implements` tags. */
function implementedTypes(declaration: ts.ClassLikeDeclaration): ts.ExpressionWithTypeArguments[] {
  const clauses = (declaration.heritageClauses ?? [])
    .filter((clause) => clause.token === ts.SyntaxKind.ImplementsKeyword)
    .flatMap((clause) => [...clause.types]);
  if (!isJavaScriptFile(declaration.getSourceFile())) {
    return clauses;
  }
  return [
    ...clauses,
    ...jsDocComments(declaration).flatMap((comment) =>
      (comment.tags ?? []).flatMap((tag) => (ts.isJSDocImplementsTag(tag) ? [tag.class] : [])),
    ),
  ];
}

/**
 * The name to report an object literal under when it stands where a storage is expected: initialising a variable of
 * that type, under `satisfies` or `as`, returned from a function declared to return one (or a promise of one), or,
 * when it has a `save`, anywhere its context types it as one. In JavaScript the JSDoc spellings count too: `@type`
 * or `@satisfies` on the variable, and a `/** @type {…} *\/ ({…})` cast.
 */
function storageLiteralName(literal: ts.ObjectLiteralExpression, resolver: StorageResolver): string | undefined {
  const javascript = isJavaScriptFile(literal.getSourceFile());
  let position: ts.Node = literal;
  let cast: ts.TypeNode | undefined;
  while (ts.isParenthesizedExpression(position.parent)) {
    position = position.parent;
    cast ??= javascript ? ts.getJSDocType(position) : undefined;
  }
  const declared = cast ?? declaredType(position, javascript);
  const isStorage =
    declared !== undefined
      ? resolver.isStorageType(declared)
      : literal.properties.some((property) => memberName(property) === SAVE) && resolver.isContextuallyStorage(literal);
  return isStorage ? (enclosingName(literal) ?? 'object literal') : undefined;
}

/** The type the position of an expression declares for it: a variable's, an assertion's, a factory's return type. */
function declaredType(position: ts.Node, javascript: boolean): ts.TypeNode | undefined {
  const parent = position.parent;
  if (ts.isVariableDeclaration(parent) && parent.initializer === position) {
    return (
      parent.type ??
      (javascript ? (ts.getJSDocType(parent) ?? ts.getJSDocSatisfiesTag(parent)?.typeExpression.type) : undefined)
    );
  }
  if (ts.isSatisfiesExpression(parent) || ts.isAsExpression(parent) || ts.isTypeAssertionExpression(parent)) {
    return parent.type;
  }
  if (ts.isReturnStatement(parent)) {
    return awaitedTypeNode(enclosingFunction(parent)?.type);
  }
  if (ts.isArrowFunction(parent) && parent.body === position) {
    return awaitedTypeNode(parent.type);
  }
  return undefined;
}

/** `Promise<T>` unwrapped to `T`, for async factories. */
function awaitedTypeNode(node: ts.TypeNode | undefined): ts.TypeNode | undefined {
  if (
    node !== undefined &&
    ts.isTypeReferenceNode(node) &&
    ts.isIdentifier(node.typeName) &&
    node.typeName.text === 'Promise'
  ) {
    return node.typeArguments?.[0];
  }
  return node;
}

function enclosingFunction(node: ts.Node): ts.SignatureDeclaration | undefined {
  for (let current = node.parent; !ts.isSourceFile(current); current = current.parent) {
    if (ts.isFunctionLike(current)) {
      return current;
    }
  }
  return undefined;
}

/** The variable, function or method a literal is written in, for reports. */
function enclosingName(node: ts.Node): string | undefined {
  for (let current = node.parent; !ts.isSourceFile(current); current = current.parent) {
    if (
      (ts.isVariableDeclaration(current) ||
        ts.isFunctionDeclaration(current) ||
        ts.isMethodDeclaration(current) ||
        ts.isPropertyAssignment(current)) &&
      current.name !== undefined &&
      ts.isIdentifier(current.name)
    ) {
      return current.name.text;
    }
  }
  return undefined;
}

/** A member's static name: an identifier or a string literal, plain or in brackets; `undefined` when computed. */
function memberName(member: ts.ClassElement | ts.ObjectLiteralElementLike): string | undefined {
  const name = member.name;
  if (name === undefined) {
    return undefined;
  }
  if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNoSubstitutionTemplateLiteral(name)) {
    return name.text;
  }
  if (ts.isComputedPropertyName(name) && ts.isStringLiteralLike(name.expression)) {
    return name.expression.text;
  }
  return undefined;
}

function isInstanceMember(member: ts.ClassElement): boolean {
  return (
    (ts.isMethodDeclaration(member) ||
      ts.isPropertyDeclaration(member) ||
      ts.isGetAccessorDeclaration(member) ||
      ts.isSetAccessorDeclaration(member)) &&
    !hasModifier(member, ts.SyntaxKind.StaticKeyword)
  );
}

function hasModifier(node: ts.Node, kind: ts.SyntaxKind): boolean {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((modifier) => modifier.kind === kind);
}

/** The instance members named `name`: one, or a method's overload signatures and implementation. */
function instanceMembers(declaration: ts.ClassLikeDeclaration, name: string): ts.ClassElement[] {
  return declaration.members.filter((member) => isInstanceMember(member) && memberName(member) === name);
}

/** The instance member named `name`; among overloads, the one with a body. */
function instanceMember(declaration: ts.ClassLikeDeclaration, name: string): ts.ClassElement | undefined {
  const members = instanceMembers(declaration, name);
  return members.find((member) => !ts.isMethodDeclaration(member) || member.body !== undefined) ?? members[0];
}

/** The class chain above `declaration`, as far as the resolver sees it, nearest first. */
function ancestors(declaration: ts.ClassLikeDeclaration, resolver: StorageResolver): ts.ClassLikeDeclaration[] {
  const chain: ts.ClassLikeDeclaration[] = [];
  for (let base = resolver.baseClassOf(declaration); base.kind === 'visible' && !chain.includes(base.declaration);) {
    chain.push(base.declaration);
    base = resolver.baseClassOf(base.declaration);
  }
  return chain;
}

function classFacts(declaration: ts.ClassLikeDeclaration, context: ReadContext): ImplementerFacts {
  const { sourceFile, text, resolver } = context;
  const save = instanceMember(declaration, SAVE);
  const chain = ancestors(declaration, resolver);
  const storageMembers = STORAGE_MEMBERS.flatMap((name) => instanceMembers(declaration, name));
  return {
    id: implementerId(declaration),
    file: sourceFile.fileName,
    kind: 'class',
    name: declaration.name?.text ?? 'default export class',
    line: lineOf(sourceFile, declaration.getStart()),
    isAbstract: hasModifier(declaration, ts.SyntaxKind.AbstractKeyword),
    base: baseFacts(declaration, context),
    ownSave: save === undefined ? undefined : saveFacts(save, text, instanceMembers(declaration, SAVE).length > 1),
    ownWriteVersion: instanceMember(declaration, WRITE_VERSION) !== undefined,
    memberNames: [declaration, ...chain].flatMap((cls) => cls.members.flatMap((member) => memberName(member) ?? [])),
    membersMayComeFromElsewhere: false,
    idParameterName: idParameterName(ID_TAKING_MEMBERS.map((name) => instanceMember(declaration, name))),
    superSaveNames: declaration.members
      .filter(
        (member) => !hasModifier(member, ts.SyntaxKind.StaticKeyword) && !ts.isClassStaticBlockDeclaration(member),
      )
      .flatMap((member) => superSaveNames(member)),
    explicitlyPublic: storageMembers.some((member) => hasModifier(member, ts.SyntaxKind.PublicKeyword)),
    body: bodyFacts(declaration, declaration.members, text, false),
  };
}

function baseFacts(declaration: ts.ClassLikeDeclaration, context: ReadContext): BaseFacts | undefined {
  const base = context.resolver.baseClassOf(declaration);
  switch (base.kind) {
    case 'none':
      return undefined;
    case 'unknown':
      return { kind: 'unknown', name: base.name, where: base.where };
    case 'visible': {
      const summary = chainSummary(base.declaration, context.resolver);
      if (summary === undefined) {
        const outermost = ancestors(base.declaration, context.resolver).at(-1) ?? base.declaration;
        const unseen = context.resolver.baseClassOf(outermost);
        return unseen.kind === 'unknown'
          ? { kind: 'unknown', name: unseen.name, where: unseen.where }
          : { kind: 'unknown', name: base.declaration.name?.text ?? '', where: 'another-file' };
      }
      return context.isImplementer(base.declaration)
        ? { kind: 'implementer', id: implementerId(base.declaration), ...summary }
        : { kind: 'plain', ...summary };
    }
  }
}

/** `save` and `writeVersion` over a base class and its ancestors; `undefined` when the chain leaves what can be seen. */
function chainSummary(base: ts.ClassLikeDeclaration, resolver: StorageResolver): ChainSummary | undefined {
  const chain = [base, ...ancestors(base, resolver)];
  if (resolver.baseClassOf(chain.at(-1) ?? base).kind === 'unknown') {
    return undefined;
  }
  const save = chain.map((cls) => instanceMember(cls, SAVE)).find((member) => member !== undefined);
  return {
    name: base.name?.text ?? 'an anonymous class',
    saveParameterCount: save === undefined ? undefined : parametersOf(save).length,
    saveIsAsync: save === undefined || isAsyncMember(save),
    saveIsField: save !== undefined && ts.isPropertyDeclaration(save),
    hasWriteVersion: chain.some((cls) => instanceMember(cls, WRITE_VERSION) !== undefined),
  };
}

/** The function a member is, or holds: a method, or an arrow or function expression in a field or property. */
function functionOf(member: ts.ClassElement | ts.ObjectLiteralElementLike): ts.SignatureDeclaration | undefined {
  if (ts.isMethodDeclaration(member)) {
    return member;
  }
  if (ts.isPropertyDeclaration(member) || ts.isPropertyAssignment(member)) {
    const initializer = member.initializer === undefined ? undefined : skipParentheses(member.initializer);
    return initializer !== undefined && (ts.isArrowFunction(initializer) || ts.isFunctionExpression(initializer))
      ? initializer
      : undefined;
  }
  return undefined;
}

function skipParentheses(expression: ts.Expression): ts.Expression {
  return ts.isParenthesizedExpression(expression) ? skipParentheses(expression.expression) : expression;
}

function parametersOf(member: ts.ClassElement | ts.ObjectLiteralElementLike): readonly ts.ParameterDeclaration[] {
  return (functionOf(member)?.parameters ?? []).filter((parameter) => !isThisParameter(parameter));
}

function isAsyncMember(member: ts.ClassElement | ts.ObjectLiteralElementLike): boolean {
  const fn = functionOf(member);
  return fn !== undefined && hasModifier(fn, ts.SyntaxKind.AsyncKeyword);
}

function idParameterName(
  members: readonly (ts.ClassElement | ts.ObjectLiteralElementLike | undefined)[],
): string | undefined {
  for (const member of members) {
    const first = member === undefined ? undefined : parametersOf(member)[0];
    if (first !== undefined && ts.isIdentifier(first.name)) {
      return first.name.text.replace(/^_+(?=.)/, '');
    }
  }
  return undefined;
}

function saveFacts(
  member: ts.ClassElement | ts.ObjectLiteralElementLike,
  text: string,
  hasOverloads: boolean,
): SaveFacts {
  const fn = functionOf(member);
  const parameters = parametersOf(member);
  const isMethod = ts.isMethodDeclaration(member);
  const abstract = isMethod && member.body === undefined && hasModifier(member, ts.SyntaxKind.AbstractKeyword);
  const name = member.name ?? member;
  const modifiers = ts.canHaveModifiers(member) ? (ts.getModifiers(member) ?? []) : [];
  const written = modifiers
    .filter((modifier) =>
      [
        ts.SyntaxKind.PublicKeyword,
        ts.SyntaxKind.ProtectedKeyword,
        ts.SyntaxKind.PrivateKeyword,
        ts.SyntaxKind.ReadonlyKeyword,
      ].includes(modifier.kind),
    )
    .map((modifier) => `${modifier.getText()} `)
    .join('');
  const override = modifiers.find((modifier) => modifier.kind === ts.SyntaxKind.OverrideKeyword);
  const decorators = ts.canHaveDecorators(member) ? (ts.getDecorators(member) ?? []) : [];
  const [firstDecorator] = decorators;
  const lastDecorator = decorators.at(-1);
  const thisParameter = fn?.parameters.find((parameter) => isThisParameter(parameter));
  return {
    acceptsCondition: parameters.length >= 3 || parameters.some((parameter) => parameter.dotDotDotToken !== undefined),
    form: isMethod
      ? abstract
        ? 'abstract-method'
        : 'method'
      : ts.isGetAccessorDeclaration(member) || ts.isSetAccessorDeclaration(member)
        ? 'accessor'
        : fn === undefined
          ? 'value'
          : 'property',
    functionKind:
      fn === undefined
        ? undefined
        : ts.isArrowFunction(fn)
          ? 'arrow'
          : ts.isFunctionExpression(fn)
            ? 'function'
            : 'method',
    isAsync: isAsyncMember(member),
    hasOverloads,
    typeParameters:
      fn?.typeParameters === undefined
        ? undefined
        : text.slice(fn.typeParameters.pos - 1, text.indexOf('>', fn.typeParameters.end) + 1),
    thisParameter: thisParameter?.getText(),
    jsDocReturnType: fn === undefined ? undefined : ts.getJSDocReturnType(fn)?.getText(),
    decorators:
      firstDecorator === undefined || lastDecorator === undefined
        ? undefined
        : { start: firstDecorator.getStart(), end: skipWhitespace(text, lastDecorator.end) },
    overrideKeyword:
      override === undefined ? undefined : { start: override.getStart(), end: skipWhitespace(text, override.end) },
    parameters: parameters.map((parameter) => parameterFacts(parameter)),
    returnType: fn?.type?.getText(),
    modifiers: written,
    start: member.getStart(),
    end: member.end,
    commentsStart: attachedCommentsStart(text, member),
    nameStart: name.getStart(),
    nameEnd: name.end,
    parameterList: fn === undefined ? undefined : parameterListFacts(fn, text),
    body: fn === undefined || abstract ? undefined : bodyOf(fn),
  };
}

function isThisParameter(parameter: ts.ParameterDeclaration): boolean {
  return ts.isIdentifier(parameter.name) && parameter.name.text === 'this';
}

function skipWhitespace(text: string, offset: number): number {
  let at = offset;
  while (at < text.length && /\s/.test(text[at] ?? '')) {
    at += 1;
  }
  return at;
}

function parameterFacts(parameter: ts.ParameterDeclaration): ParameterFacts {
  return {
    name: ts.isIdentifier(parameter.name) ? parameter.name.text : undefined,
    type: parameter.type?.getText(),
    text: parameter.getText(),
    isRest: parameter.dotDotDotToken !== undefined,
    jsDocType: ts.getJSDocParameterTags(parameter)[0]?.typeExpression?.type.getText(),
  };
}

function parameterListFacts(fn: ts.SignatureDeclaration, text: string): ParameterListFacts {
  const parameters = fn.parameters;
  const last = parameters.at(-1);
  const parenthesised = text[parameters.pos - 1] === '(';
  const firstParameterStart = parameters[0]?.getStart();
  if (!parenthesised) {
    return {
      open: undefined,
      close: last?.end ?? parameters.end,
      firstParameterStart,
      lastParameterEnd: last?.end,
      trailingComma: false,
    };
  }
  const close = text.indexOf(')', parameters.end);
  let lastParameterEnd = last?.end;
  let trailingComma = false;
  const comma = lastParameterEnd === undefined ? null : /^\s*,/.exec(text.slice(lastParameterEnd, close));
  if (comma !== null && lastParameterEnd !== undefined) {
    trailingComma = true;
    lastParameterEnd += comma[0].length;
  }
  return { open: parameters.pos - 1, close, firstParameterStart, lastParameterEnd, trailingComma };
}

function bodyOf(fn: ts.SignatureDeclaration): SaveFacts['body'] {
  const body = (fn as { readonly body?: ts.Node }).body;
  if (body === undefined) {
    return undefined;
  }
  return ts.isBlock(body)
    ? { kind: 'block', open: body.getStart(), close: body.end - 1 }
    : { kind: 'expression', start: body.getStart(), end: body.end };
}

/**
 * Every `super.save` (and `super['save']`) in a class member. Not inside a nested class or an object literal's method
 * or accessor, where `super` means another prototype.
 */
function superSaveNames(member: ts.ClassElement): Range[] {
  const found: Range[] = [];
  const visit = (current: ts.Node): void => {
    if (
      ts.isClassLike(current) ||
      ((ts.isMethodDeclaration(current) || ts.isAccessor(current)) && ts.isObjectLiteralExpression(current.parent))
    ) {
      return;
    }
    if (current.kind === ts.SyntaxKind.SuperKeyword) {
      const access = current.parent;
      if (ts.isPropertyAccessExpression(access) && access.name.text === SAVE) {
        found.push({ start: access.name.getStart(), end: access.name.end });
      } else if (
        ts.isElementAccessExpression(access) &&
        ts.isStringLiteralLike(access.argumentExpression) &&
        access.argumentExpression.text === SAVE
      ) {
        found.push({ start: access.argumentExpression.getStart() + 1, end: access.argumentExpression.end - 1 });
      }
    }
    ts.forEachChild(current, visit);
  };
  ts.forEachChild(member, visit);
  return found;
}

/**
 * Where the comments directly above `member` begin (its JSDoc, line comments), so a marker goes above them rather
 * than between a member and its documentation. A blank line ends the run: a section comment above it stays apart.
 */
function attachedCommentsStart(text: string, member: ts.Node): number {
  const start = member.getStart();
  const ranges = ts.getLeadingCommentRanges(text, member.pos) ?? [];
  let at = start;
  for (const range of [...ranges].reverse()) {
    if (/\n[ \t]*\r?\n/.test(text.slice(range.end, at))) {
      break;
    }
    at = range.pos;
  }
  return at;
}

function literalFacts(literal: ts.ObjectLiteralExpression, name: string, context: ReadContext): ImplementerFacts {
  const { sourceFile, text } = context;
  const properties = literal.properties;
  const save = properties.find((property) => memberName(property) === SAVE);
  const byName = (wanted: string) => properties.find((property) => memberName(property) === wanted);
  return {
    id: implementerId(literal),
    file: sourceFile.fileName,
    kind: 'object-literal',
    name,
    line: lineOf(sourceFile, literal.getStart()),
    isAbstract: false,
    base: undefined,
    ownSave: save === undefined ? undefined : saveFacts(save, text, false),
    ownWriteVersion: byName(WRITE_VERSION) !== undefined,
    memberNames: properties.flatMap((property) => memberName(property) ?? []),
    membersMayComeFromElsewhere: properties.some(
      (property) => ts.isSpreadAssignment(property) || memberName(property) === undefined,
    ),
    idParameterName: idParameterName(ID_TAKING_MEMBERS.map(byName)),
    superSaveNames: [],
    explicitlyPublic: false,
    body: bodyFacts(literal, properties, text, true),
  };
}

function lineOf(sourceFile: ts.SourceFile, offset: number): number {
  return sourceFile.getLineAndCharacterOfPosition(offset).line + 1;
}

/** Where new members go in a class body or object literal, and how they are indented, from the original text. */
function bodyFacts(container: ts.Node, members: ts.NodeArray<ts.Node>, text: string, literal: boolean): BodyFacts {
  const closeBrace = container.end - 1;
  const last = members.at(-1)?.end;
  const comma = literal && last !== undefined ? /^\s*,/.exec(text.slice(last, closeBrace)) : null;
  const first = members[0];
  return {
    openBrace: members.pos - 1,
    closeBrace,
    lastMemberEnd: last === undefined ? undefined : last + (comma?.[0].length ?? 0),
    lastMemberHasComma: comma !== null,
    memberIndent: first === undefined ? '' : lineIndent(text, first.getStart()),
    outerIndent: lineIndent(text, container.getStart()),
  };
}

/** The error for a file that does not parse: where (1-based line and column) and the parser's reason. */
export function syntaxError(sourceFile: ts.SourceFile, problem: ts.Diagnostic): Error {
  const { line, character } = sourceFile.getLineAndCharacterOfPosition(problem.start ?? 0);
  return new Error(
    upgradeMessages.doesNotParse(
      sourceFile.fileName,
      line + 1,
      character + 1,
      ts.flattenDiagnosticMessageText(problem.messageText, ' '),
    ),
  );
}
