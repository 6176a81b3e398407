import { createRequire } from 'node:module';
import type {
  ClassDeclaration,
  ExpressionWithTypeArguments,
  Node as MorphNode,
  ObjectLiteralExpression,
  SourceFile,
  Symbol as MorphSymbol,
  TypeNode,
} from 'ts-morph';
import { bodyFacts, type BodyOffsets } from './body-facts.js';
import type {
  BaseFacts,
  ImplementerFacts,
  ImportDeclarationFacts,
  ImportFacts,
  SaveFacts,
} from './implementer-facts.js';
import { PACKAGE_NAME } from '../../vocabulary/index.js';

// Loaded with require: importing this CommonJS bundle from ESM makes Node scan it for named exports, which costs
// a noticeable part of a whole run (see doc/adr/0203).
const { Node, SyntaxKind } = createRequire(import.meta.url)('ts-morph') as typeof import('ts-morph');
type Node = MorphNode;

/** What the type-aware front end found in one file. Plain data: no ts-morph node escapes this module. */
export interface TypedFileFacts {
  readonly path: string;
  /** The text offsets refer to, as the compiler read it (without a byte order mark). */
  readonly text: string;
  readonly implementers: readonly ImplementerFacts[];
  readonly imports: ImportFacts;
}

/**
 * Finds every implementer of `CheckpointStorage` from `checkpoint-fencing` in `files`, resolving names through the
 * type checker: aliases, namespace imports, barrels, interfaces that extend it, and base classes that implement it.
 * @throws Error naming the file when `checkpoint-fencing` is imported but cannot be resolved.
 */
export function findImplementersWithTypes(files: readonly SourceFile[]): TypedFileFacts[] {
  const storageInterfaces = canonicalStorageInterfaces(files);
  const resolver = new StorageTypeResolver(storageInterfaces);
  const classIds = new Map<ClassDeclaration, string>();
  const found: {
    file: SourceFile;
    classes: ClassDeclaration[];
    literals: { node: ObjectLiteralExpression; name: string }[];
  }[] = [];

  for (const file of files) {
    const classes = file
      .getDescendantsOfKind(SyntaxKind.ClassDeclaration)
      .filter((declaration) => resolver.isImplementerClass(declaration));
    for (const declaration of classes) {
      classIds.set(declaration, `${file.getFilePath()}#${declaration.getStart()}`);
    }
    found.push({ file, classes, literals: storageObjectLiterals(file, resolver) });
  }

  return found.map(({ file, classes, literals }) => {
    const text = file.getFullText();
    return {
      path: file.getFilePath(),
      text,
      implementers: [
        ...classes.map((declaration) => classFacts(declaration, text, classIds)),
        ...literals.map(({ node, name }) => literalFacts(node, name, text)),
      ],
      imports: importFacts(file),
    };
  });
}

function canonicalStorageInterfaces(files: readonly SourceFile[]): Set<Node> {
  const found = new Set<Node>();
  for (const file of files) {
    const declarations = [...file.getImportDeclarations(), ...file.getExportDeclarations()];
    for (const declaration of declarations) {
      if (declaration.getModuleSpecifierValue() !== PACKAGE_NAME) {
        continue;
      }
      const target = declaration.getModuleSpecifierSourceFile();
      if (target === undefined) {
        throw new Error(
          `${file.getFilePath()}: cannot resolve '${PACKAGE_NAME}'; install it (npm install ${PACKAGE_NAME}) or map it in the tsconfig's "paths", then run the upgrade again.`,
        );
      }
      const exported = target.getExportSymbols().find((symbol) => symbol.getName() === 'CheckpointStorage');
      for (const node of resolveAlias(exported)?.getDeclarations() ?? []) {
        if (Node.isInterfaceDeclaration(node)) {
          found.add(node);
        }
      }
    }
  }
  return found;
}

function resolveAlias(symbol: MorphSymbol | undefined): MorphSymbol | undefined {
  return symbol?.getAliasedSymbol() ?? symbol;
}

/** Answers "is this `CheckpointStorage`, or derived from it?" for heritage clauses and type annotations. */
class StorageTypeResolver {
  readonly #interfaces = new Map<Node, boolean>();
  readonly #classes = new Map<ClassDeclaration, boolean>();

  constructor(canonical: ReadonlySet<Node>) {
    for (const node of canonical) {
      this.#interfaces.set(node, true);
    }
  }

  isImplementerClass(declaration: ClassDeclaration): boolean {
    const known = this.#classes.get(declaration);
    if (known !== undefined) {
      return known;
    }
    this.#classes.set(declaration, false);
    const base = declaration.getBaseClass();
    const result =
      declaration.getImplements().some((clause) => this.isStorageExpression(clause)) ||
      (base !== undefined && this.isImplementerClass(base));
    this.#classes.set(declaration, result);
    return result;
  }

  isStorageTypeNode(node: TypeNode | undefined): boolean {
    if (node === undefined || !Node.isTypeReference(node)) {
      return false;
    }
    return this.#isStorageSymbol(node.getTypeName().getSymbol());
  }

  isStorageExpression(clause: ExpressionWithTypeArguments): boolean {
    return this.#isStorageSymbol(clause.getExpression().getSymbol());
  }

  #isStorageSymbol(symbol: MorphSymbol | undefined): boolean {
    return (resolveAlias(symbol)?.getDeclarations() ?? []).some(
      (node) => Node.isInterfaceDeclaration(node) && this.#isStorageInterface(node),
    );
  }

  #isStorageInterface(node: Node): boolean {
    const known = this.#interfaces.get(node);
    if (known !== undefined) {
      return known;
    }
    this.#interfaces.set(node, false);
    const result =
      Node.isInterfaceDeclaration(node) && node.getExtends().some((clause) => this.isStorageExpression(clause));
    this.#interfaces.set(node, result);
    return result;
  }
}

/**
 * Object literals in a position typed as a storage: `const s: CheckpointStorage = {…}`, `{…} satisfies
 * CheckpointStorage`, and `return {…}` (or an arrow's expression body) in a function declared to return
 * `CheckpointStorage` or `Promise<CheckpointStorage>`.
 */
function storageObjectLiterals(
  file: SourceFile,
  resolver: StorageTypeResolver,
): { node: ObjectLiteralExpression; name: string }[] {
  const literals: { node: ObjectLiteralExpression; name: string }[] = [];
  for (const literal of file.getDescendantsOfKind(SyntaxKind.ObjectLiteralExpression)) {
    let position: Node = literal;
    while (Node.isParenthesizedExpression(position.getParentOrThrow())) {
      position = position.getParentOrThrow();
    }
    const parent = position.getParentOrThrow();
    if (
      Node.isVariableDeclaration(parent) &&
      parent.getInitializer() === position &&
      resolver.isStorageTypeNode(parent.getTypeNode())
    ) {
      literals.push({ node: literal, name: parent.getName() });
    } else if (Node.isSatisfiesExpression(parent) && resolver.isStorageTypeNode(parent.getTypeNode())) {
      const variable = parent.getFirstAncestorByKind(SyntaxKind.VariableDeclaration);
      literals.push({ node: literal, name: variable?.getName() ?? enclosingFunctionName(parent) ?? 'object literal' });
    } else if (Node.isReturnStatement(parent) || (Node.isArrowFunction(parent) && parent.getBody() === position)) {
      const fn = Node.isArrowFunction(parent)
        ? parent
        : parent.getFirstAncestor((node) => Node.isFunctionLikeDeclaration(node));
      if (
        fn !== undefined &&
        Node.isFunctionLikeDeclaration(fn) &&
        resolver.isStorageTypeNode(awaitedTypeNode(fn.getReturnTypeNode()))
      ) {
        literals.push({ node: literal, name: enclosingFunctionName(literal) ?? 'object literal' });
      }
    }
  }
  return literals;
}

/** `Promise<T>` unwrapped to `T`, for async factories. */
function awaitedTypeNode(node: TypeNode | undefined): TypeNode | undefined {
  if (node !== undefined && Node.isTypeReference(node) && node.getTypeName().getText() === 'Promise') {
    return node.getTypeArguments()[0];
  }
  return node;
}

function enclosingFunctionName(node: Node): string | undefined {
  const fn = node.getFirstAncestor(
    (ancestor) =>
      Node.isFunctionDeclaration(ancestor) ||
      Node.isMethodDeclaration(ancestor) ||
      Node.isVariableDeclaration(ancestor),
  );
  return fn !== undefined && Node.hasName(fn) ? fn.getName() : undefined;
}

function classFacts(
  declaration: ClassDeclaration,
  text: string,
  classIds: ReadonlyMap<ClassDeclaration, string>,
): ImplementerFacts {
  const members = declaration.getMembers();
  const saveMember = declaration.getInstanceMember('save');
  const chain = ancestors(declaration);
  return {
    id: classIds.get(declaration) ?? `${declaration.getSourceFile().getFilePath()}#${declaration.getStart()}`,
    file: declaration.getSourceFile().getFilePath(),
    kind: 'class',
    name: declaration.getName() ?? 'default export class',
    line: declaration.getStartLineNumber(),
    isAbstract: declaration.isAbstract(),
    base: baseFacts(declaration, classIds),
    ownSave: saveMember === undefined ? undefined : saveFacts(saveMember, text, false),
    ownWriteVersion: declaration.getInstanceMember('writeVersion') !== undefined,
    memberNames: [declaration, ...chain].flatMap((cls) => cls.getMembers().flatMap((member) => memberName(member))),
    body: bodyFacts(bodyOffsets(declaration, members), text, false),
  };
}

function ancestors(declaration: ClassDeclaration): ClassDeclaration[] {
  const chain: ClassDeclaration[] = [];
  for (let base = declaration.getBaseClass(); base !== undefined && !chain.includes(base); base = base.getBaseClass()) {
    chain.push(base);
  }
  return chain;
}

function memberName(member: Node): string[] {
  return Node.hasName(member) ? [member.getName()] : [];
}

function baseFacts(
  declaration: ClassDeclaration,
  classIds: ReadonlyMap<ClassDeclaration, string>,
): BaseFacts | undefined {
  const extendsClause = declaration.getExtends();
  if (extendsClause === undefined) {
    return undefined;
  }
  const base = declaration.getBaseClass();
  if (base === undefined) {
    return { kind: 'unknown', name: extendsClause.getExpression().getText() };
  }
  const id = classIds.get(base);
  if (id !== undefined) {
    return { kind: 'implementer', id };
  }
  let saveParameterCount: number | undefined;
  let hasWriteVersion = false;
  for (const cls of [base, ...ancestors(base)]) {
    const save = cls.getInstanceMember('save');
    if (saveParameterCount === undefined && save !== undefined) {
      saveParameterCount = parameterCount(save);
    }
    hasWriteVersion ||= cls.getInstanceMember('writeVersion') !== undefined;
  }
  return { kind: 'plain', name: base.getName() ?? extendsClause.getText(), saveParameterCount, hasWriteVersion };
}

function functionLike(member: Node): Node | undefined {
  if (Node.isMethodDeclaration(member)) {
    return member;
  }
  if (Node.isPropertyDeclaration(member) || Node.isPropertyAssignment(member)) {
    const initializer = member.getInitializer();
    return initializer !== undefined && (Node.isArrowFunction(initializer) || Node.isFunctionExpression(initializer))
      ? initializer
      : undefined;
  }
  return undefined;
}

function parameterCount(member: Node): number {
  const fn = functionLike(member);
  if (
    fn === undefined ||
    !(Node.isMethodDeclaration(fn) || Node.isArrowFunction(fn) || Node.isFunctionExpression(fn))
  ) {
    return 0;
  }
  return fn.getParameters().filter((parameter) => parameter.getName() !== 'this').length;
}

function saveFacts(member: Node, text: string, literal: boolean): SaveFacts {
  const nameNode = Node.hasName(member) && 'getNameNode' in member ? member.getNameNode() : member;
  const fn = functionLike(member);
  const superSaveNames = (fn ?? member)
    .getDescendantsOfKind(SyntaxKind.PropertyAccessExpression)
    .filter((access) => access.getExpression().getKind() === SyntaxKind.SuperKeyword && access.getName() === 'save')
    .map((access) => ({ start: access.getNameNode().getStart(), end: access.getNameNode().getEnd() }));
  const base = {
    parameterCount: parameterCount(member),
    form: Node.isMethodDeclaration(member) ? (member.isAbstract() ? 'abstract-method' : 'method') : 'property',
    start: member.getStart(),
    end: member.getEnd(),
    nameStart: nameNode.getStart(),
    nameEnd: nameNode.getEnd(),
    superSaveNames,
  } as const;
  if (!literal || fn === undefined) {
    return base;
  }
  if (Node.isMethodDeclaration(fn)) {
    const body = fn.getBody();
    const parametersText = text.slice(
      fn.getFirstChildByKindOrThrow(SyntaxKind.OpenParenToken).getStart(),
      fn.getFirstChildByKindOrThrow(SyntaxKind.CloseParenToken).getEnd(),
    );
    const returnType = fn.getReturnTypeNode();
    const asFunctionExpression = `${fn.isAsync() ? 'async ' : ''}${parametersText}${returnType === undefined ? '' : `: ${returnType.getText()}`} => ${body?.getText() ?? '{}'}`;
    return { ...base, asFunctionExpression, needsThisBinding: false };
  }
  return {
    ...base,
    asFunctionExpression: fn.getText(),
    needsThisBinding: Node.isFunctionExpression(fn) && fn.getDescendantsOfKind(SyntaxKind.ThisKeyword).length > 0,
  };
}

function literalFacts(node: ObjectLiteralExpression, name: string, text: string): ImplementerFacts {
  const properties = node.getProperties();
  const save = node.getProperty('save');
  return {
    id: `${node.getSourceFile().getFilePath()}#${node.getStart()}`,
    file: node.getSourceFile().getFilePath(),
    kind: 'object-literal',
    name,
    line: node.getStartLineNumber(),
    isAbstract: false,
    base: undefined,
    ownSave: save === undefined ? undefined : saveFacts(save, text, true),
    ownWriteVersion: node.getProperty('writeVersion') !== undefined,
    memberNames: properties.flatMap((property) => memberName(property)),
    body: bodyFacts(bodyOffsets(node, properties), text, true),
  };
}

function bodyOffsets(container: Node, members: readonly Node[]): BodyOffsets {
  return {
    containerStart: container.getStart(),
    openBrace: container.getFirstChildByKindOrThrow(SyntaxKind.OpenBraceToken).getStart(),
    closeBrace: container.getLastChildByKindOrThrow(SyntaxKind.CloseBraceToken).getStart(),
    firstMemberStart: members[0]?.getStart(),
    lastMemberEnd: members.at(-1)?.getEnd(),
  };
}

function importFacts(file: SourceFile): ImportFacts {
  const declarations: ImportDeclarationFacts[] = [];
  const text = file.getFullText();
  for (const declaration of file.getImportDeclarations()) {
    if (declaration.getModuleSpecifierValue() !== PACKAGE_NAME) {
      continue;
    }
    const named = declaration.getNamedImports();
    const last = named.at(-1);
    let lastSpecifierEnd = last?.getEnd();
    let trailingComma = false;
    const comma = lastSpecifierEnd === undefined ? null : /^\s*,/.exec(text.slice(lastSpecifierEnd));
    if (comma !== null && lastSpecifierEnd !== undefined) {
      trailingComma = true;
      lastSpecifierEnd += comma[0].length;
    }
    declarations.push({
      typeOnly: declaration.isTypeOnly(),
      namespace: declaration.getNamespaceImport()?.getText(),
      named: named.map((specifier) => ({
        imported: specifier.getName(),
        local: specifier.getAliasNode()?.getText() ?? specifier.getName(),
        typeOnly: specifier.isTypeOnly(),
      })),
      lastSpecifierEnd,
      trailingComma,
      end: declaration.getEnd(),
    });
  }
  for (const declaration of file.getDescendantsOfKind(SyntaxKind.ImportEqualsDeclaration)) {
    const reference = declaration.getModuleReference();
    if (
      Node.isExternalModuleReference(reference) &&
      reference.getExpression()?.getText().slice(1, -1) === PACKAGE_NAME
    ) {
      declarations.push({
        typeOnly: declaration.isTypeOnly(),
        namespace: declaration.getName(),
        named: [],
        lastSpecifierEnd: undefined,
        trailingComma: false,
        end: declaration.getEnd(),
      });
    }
  }
  const imports = file
    .getStatements()
    .filter((statement) => Node.isImportDeclaration(statement) || Node.isImportEqualsDeclaration(statement));
  const lastImport = imports.at(-1);
  const firstStatement = file.getStatements()[0];
  return {
    declarations,
    insertNewImportAt: lastImport?.getEnd() ?? firstStatement?.getStart() ?? 0,
    afterImport: lastImport !== undefined,
    typescript: true,
  };
}
