import { bodyFacts, type BodyOffsets } from './body-facts.js';
import type {
  BaseFacts,
  ImplementerFacts,
  ImportDeclarationFacts,
  ImportFacts,
  SaveFacts,
} from './implementer-facts.js';
import { PACKAGE_NAME } from '../../vocabulary/index.js';

/** A Babel AST node as jscodeshift's `ts`/`tsx` parsers produce it, with the fields this module reads. */
export interface AstNode {
  readonly type: string;
  readonly start?: number | null;
  readonly end?: number | null;
  readonly [field: string]: unknown;
}

/** What the syntactic front end found in one file. */
export interface SyntacticFileFacts {
  readonly implementers: readonly ImplementerFacts[];
  readonly imports: ImportFacts;
}

interface Comment {
  readonly value: string;
  readonly start: number;
  readonly end: number;
}

/**
 * Finds implementers of `CheckpointStorage` without type information: in TypeScript through the import from
 * `checkpoint-fencing` (named, aliased or namespace) and interfaces in the same file that extend it; in JavaScript
 * through a JSDoc `@implements {Name}` whose name comes from `@typedef {import('checkpoint-fencing').CheckpointStorage}`
 * or `@import`. Base classes declared in another file cannot be seen; such implementers are reported as skipped.
 */
export function findImplementersSyntactically(
  program: AstNode,
  text: string,
  path: string,
  typescript: boolean,
): SyntacticFileFacts {
  const nodes = collect(program);
  const comments = collectComments(nodes);
  const storageNames = new StorageNames(nodes, comments);
  const classes = nodes.filter((node) => node.type === 'ClassDeclaration' || node.type === 'ClassExpression');
  const byName = new Map(
    classes.flatMap((node) =>
      identifierName(node['id']) === undefined ? [] : [[identifierName(node['id']) ?? '', node] as const],
    ),
  );
  const implementerClasses = new Set<AstNode>();
  const isImplementer = (node: AstNode, seen: Set<AstNode>): boolean => {
    if (seen.has(node)) {
      return false;
    }
    seen.add(node);
    if (list(node['implements']).some((clause) => storageNames.isStorageReference(clause['expression']))) {
      return true;
    }
    if (jsDocImplements(node, nodes, comments, text).some((name) => storageNames.isStorageName(name))) {
      return true;
    }
    const base = byName.get(identifierName(node['superClass']) ?? '');
    return base !== undefined && isImplementer(base, seen);
  };
  for (const node of classes) {
    if (isImplementer(node, new Set())) {
      implementerClasses.add(node);
    }
  }
  const idOf = (node: AstNode): string => `${path}#${node.start ?? 0}`;
  const implementers: ImplementerFacts[] = [...implementerClasses].map((node) =>
    classFacts(node, text, path, idOf, byName, implementerClasses),
  );
  for (const { literal, name } of storageObjectLiterals(nodes, storageNames)) {
    implementers.push(literalFacts(literal, name, text, path));
  }
  return { implementers, imports: importFacts(program, text, typescript) };
}

/** Every node of the tree, parents before children. */
function collect(root: AstNode): AstNode[] {
  const out: AstNode[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) {
        visit(item);
      }
    } else if (isNode(value)) {
      out.push(value);
      for (const [key, child] of Object.entries(value)) {
        if (key !== 'loc' && key !== 'tokens' && key !== 'comments' && typeof child === 'object') {
          visit(child);
        }
      }
    }
  };
  visit(root);
  return out;
}

function isNode(value: unknown): value is AstNode {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

function node(value: unknown): AstNode | undefined {
  return isNode(value) ? value : undefined;
}

function list(value: unknown): AstNode[] {
  return Array.isArray(value) ? value.filter(isNode) : [];
}

function identifierName(value: unknown): string | undefined {
  const candidate = node(value);
  if (candidate?.type === 'Identifier') {
    return typeof candidate['name'] === 'string' ? candidate['name'] : undefined;
  }
  if (candidate?.type === 'StringLiteral') {
    return typeof candidate['value'] === 'string' ? candidate['value'] : undefined;
  }
  return undefined;
}

function start(value: AstNode): number {
  return value.start ?? 0;
}

function end(value: AstNode): number {
  return value.end ?? 0;
}

/** jscodeshift (through recast) attaches comments to the nodes they precede or follow; gather them once. */
function collectComments(nodes: readonly AstNode[]): Comment[] {
  const seen = new Map<number, Comment>();
  for (const candidate of nodes) {
    for (const comment of list(candidate['comments'])) {
      if (typeof comment['value'] === 'string') {
        seen.set(start(comment), { value: comment['value'], start: start(comment), end: end(comment) });
      }
    }
  }
  return [...seen.values()].sort((a, b) => a.start - b.start);
}

/** Which names (and namespace-qualified names) mean `CheckpointStorage` from `checkpoint-fencing` in this file. */
class StorageNames {
  readonly #names = new Set<string>();
  readonly #namespaces = new Set<string>();

  constructor(nodes: readonly AstNode[], comments: readonly Comment[]) {
    for (const declaration of nodes.filter((candidate) => candidate.type === 'ImportDeclaration')) {
      if (node(declaration['source'])?.['value'] !== PACKAGE_NAME) {
        continue;
      }
      for (const specifier of list(declaration['specifiers'])) {
        const local = identifierName(specifier['local']);
        if (specifier.type === 'ImportNamespaceSpecifier' && local !== undefined) {
          this.#namespaces.add(local);
        } else if (
          specifier.type === 'ImportSpecifier' &&
          identifierName(specifier['imported']) === 'CheckpointStorage' &&
          local !== undefined
        ) {
          this.#names.add(local);
        }
      }
    }
    for (const comment of comments) {
      for (const match of comment.value.matchAll(
        /@typedef\s*\{\s*import\(\s*['"]checkpoint-fencing['"]\s*\)\.CheckpointStorage\s*\}\s*([\w$]+)/g,
      )) {
        this.#names.add(match[1] ?? '');
      }
      for (const match of comment.value.matchAll(/@import\s*\{([^}]*)\}\s*from\s*['"]checkpoint-fencing['"]/g)) {
        for (const part of (match[1] ?? '').split(',')) {
          const [imported, local] = part.trim().split(/\s+as\s+/);
          if (imported === 'CheckpointStorage') {
            this.#names.add(local ?? imported);
          }
        }
      }
    }
    // Interfaces in this file that extend the storage interface count too; repeat until no new one appears.
    const interfaces = nodes.filter((candidate) => candidate.type === 'TSInterfaceDeclaration');
    for (let grew = true; grew;) {
      grew = false;
      for (const declaration of interfaces) {
        const name = identifierName(declaration['id']);
        if (
          name !== undefined &&
          !this.#names.has(name) &&
          list(declaration['extends']).some((clause) => this.isStorageReference(clause['expression']))
        ) {
          this.#names.add(name);
          grew = true;
        }
      }
    }
  }

  isStorageName(name: string): boolean {
    return (
      this.#names.has(name) ||
      name === `import('${PACKAGE_NAME}').CheckpointStorage` ||
      name === `import("${PACKAGE_NAME}").CheckpointStorage`
    );
  }

  /** An `Identifier`, or `ns.CheckpointStorage` as a member expression or qualified type name. */
  isStorageReference(value: unknown): boolean {
    const reference = node(value);
    if (reference === undefined) {
      return false;
    }
    if (reference.type === 'Identifier') {
      return this.#names.has(identifierName(reference) ?? '');
    }
    if (reference.type === 'TSQualifiedName') {
      return (
        this.#namespaces.has(identifierName(reference['left']) ?? '') &&
        identifierName(reference['right']) === 'CheckpointStorage'
      );
    }
    if (reference.type === 'MemberExpression') {
      return (
        this.#namespaces.has(identifierName(reference['object']) ?? '') &&
        identifierName(reference['property']) === 'CheckpointStorage'
      );
    }
    return false;
  }

  isStorageType(annotation: unknown): boolean {
    let type = node(annotation);
    if (type?.type === 'TSTypeAnnotation') {
      type = node(type['typeAnnotation']);
    }
    if (type?.type === 'TSTypeReference' && identifierName(type['typeName']) === 'Promise') {
      type = list(node(type['typeParameters'])?.['params'])[0];
    }
    return type?.type === 'TSTypeReference' && this.isStorageReference(type['typeName']);
  }
}

/** Names in a JSDoc `@implements {Name}` directly above the class (or its `export`). */
function jsDocImplements(
  declaration: AstNode,
  nodes: readonly AstNode[],
  comments: readonly Comment[],
  text: string,
): string[] {
  const exported = nodes.find(
    (candidate) =>
      (candidate.type === 'ExportNamedDeclaration' || candidate.type === 'ExportDefaultDeclaration') &&
      candidate['declaration'] === declaration,
  );
  const anchor = start(exported ?? declaration);
  const comment = comments.findLast(
    (candidate) => candidate.end <= anchor && text.slice(candidate.end, anchor).trim() === '',
  );
  return comment === undefined
    ? []
    : [...comment.value.matchAll(/@implements\s*\{\s*([^}]+?)\s*\}/g)].map((match) => match[1] ?? '');
}

function storageObjectLiterals(nodes: readonly AstNode[], names: StorageNames): { literal: AstNode; name: string }[] {
  const found: { literal: AstNode; name: string }[] = [];
  const unwrap = (value: unknown): AstNode | undefined => {
    const candidate = node(value);
    return candidate?.type === 'TSParenthesizedType' || candidate?.type === 'ParenthesizedExpression'
      ? unwrap(candidate['expression'])
      : candidate;
  };
  for (const candidate of nodes) {
    if (candidate.type === 'VariableDeclarator') {
      const literal = unwrap(candidate['init']);
      if (literal?.type === 'ObjectExpression' && names.isStorageType(node(candidate['id'])?.['typeAnnotation'])) {
        found.push({ literal, name: identifierName(candidate['id']) ?? 'object literal' });
      }
    } else if (candidate.type === 'TSSatisfiesExpression') {
      const literal = unwrap(candidate['expression']);
      if (literal?.type === 'ObjectExpression' && names.isStorageType(candidate['typeAnnotation'])) {
        found.push({ literal, name: enclosingName(literal, nodes) });
      }
    } else if (
      /Function(?:Declaration|Expression)$|^ArrowFunctionExpression$|^ClassMethod$/.test(candidate.type) &&
      names.isStorageType(candidate['returnType'])
    ) {
      const body = unwrap(candidate['body']);
      const returned =
        body?.type === 'ObjectExpression'
          ? [body]
          : collect(node(candidate['body']) ?? candidate)
              .filter((inner) => inner.type === 'ReturnStatement')
              .map((statement) => unwrap(statement['argument']))
              .filter((value): value is AstNode => value?.type === 'ObjectExpression');
      for (const literal of returned) {
        found.push({
          literal,
          name: identifierName(candidate['id']) ?? identifierName(candidate['key']) ?? enclosingName(literal, nodes),
        });
      }
    }
  }
  return found;
}

function enclosingName(literal: AstNode, nodes: readonly AstNode[]): string {
  const holder = nodes.findLast(
    (candidate) =>
      (candidate.type === 'VariableDeclarator' || candidate.type === 'FunctionDeclaration') &&
      start(candidate) <= start(literal) &&
      end(candidate) >= end(literal),
  );
  return identifierName(holder?.['id']) ?? 'object literal';
}

function memberName(member: AstNode): string | undefined {
  return member['computed'] === true ? undefined : identifierName(member['key']);
}

function isInstanceMember(member: AstNode): boolean {
  return (
    member['static'] !== true &&
    /^(?:ClassMethod|ClassProperty|TSDeclareMethod|ClassAccessorProperty)$/.test(member.type)
  );
}

function parameterCount(member: AstNode): number {
  const fn = member.type === 'ClassProperty' || member.type === 'ObjectProperty' ? node(member['value']) : member;
  return list(fn?.['params']).filter((parameter) => identifierName(parameter) !== 'this').length;
}

function superSaveNames(member: AstNode): { start: number; end: number }[] {
  return collect(member)
    .filter(
      (candidate) =>
        candidate.type === 'MemberExpression' &&
        node(candidate['object'])?.type === 'Super' &&
        identifierName(candidate['property']) === 'save',
    )
    .map((access) => {
      const property = node(access['property']);
      return { start: property === undefined ? 0 : start(property), end: property === undefined ? 0 : end(property) };
    });
}

function saveFacts(member: AstNode, text: string, literal: boolean): SaveFacts {
  const key = node(member['key']);
  const value = node(member['value']);
  const base = {
    parameterCount: parameterCount(member),
    form:
      member.type === 'TSDeclareMethod' && member['abstract'] === true
        ? 'abstract-method'
        : /Method$/.test(member.type)
          ? 'method'
          : 'property',
    start: start(member),
    end: end(member),
    nameStart: key === undefined ? start(member) : start(key),
    nameEnd: key === undefined ? start(member) : end(key),
    superSaveNames: superSaveNames(member),
  } as const;
  if (!literal) {
    return base;
  }
  if (member.type === 'ObjectMethod') {
    const params = list(member['params']);
    const body = node(member['body']);
    const first = params[0];
    const last = params.at(-1);
    const parametersText =
      first === undefined || last === undefined ? '()' : `(${text.slice(start(first), end(last))})`;
    const returnType = node(member['returnType']);
    const asFunctionExpression = `${member['async'] === true ? 'async ' : ''}${parametersText}${returnType === undefined ? '' : text.slice(start(returnType), end(returnType))} => ${body === undefined ? '{}' : text.slice(start(body), end(body))}`;
    return { ...base, asFunctionExpression, needsThisBinding: false };
  }
  const usesThis =
    value !== undefined &&
    value.type === 'FunctionExpression' &&
    collect(value).some((inner) => inner.type === 'ThisExpression');
  return {
    ...base,
    asFunctionExpression: value === undefined ? '() => undefined' : text.slice(start(value), end(value)),
    needsThisBinding: usesThis,
  };
}

function classFacts(
  declaration: AstNode,
  text: string,
  path: string,
  idOf: (node: AstNode) => string,
  byName: ReadonlyMap<string, AstNode>,
  implementers: ReadonlySet<AstNode>,
): ImplementerFacts {
  const body = node(declaration['body']);
  const members = list(body?.['body']);
  const instance = members.filter(isInstanceMember);
  const save = instance.find((member) => memberName(member) === 'save' && member['kind'] !== 'constructor');
  const chain = plainAncestors(declaration, byName);
  return {
    id: idOf(declaration),
    file: path,
    kind: 'class',
    name: identifierName(declaration['id']) ?? 'class expression',
    line: lineOf(text, start(declaration)),
    isAbstract: declaration['abstract'] === true,
    base: baseFacts(declaration, byName, implementers, idOf),
    ownSave: save === undefined ? undefined : saveFacts(save, text, false),
    ownWriteVersion: instance.some((member) => memberName(member) === 'writeVersion'),
    memberNames: [declaration, ...chain].flatMap((cls) =>
      list(node(cls['body'])?.['body']).flatMap((member) => memberName(member) ?? []),
    ),
    body: bodyFacts(bodyOffsets(body ?? declaration, members, text), text, false),
  };
}

function plainAncestors(declaration: AstNode, byName: ReadonlyMap<string, AstNode>): AstNode[] {
  const chain: AstNode[] = [];
  for (
    let base = byName.get(identifierName(declaration['superClass']) ?? '');
    base !== undefined && !chain.includes(base);
  ) {
    chain.push(base);
    base = byName.get(identifierName(base['superClass']) ?? '');
  }
  return chain;
}

function baseFacts(
  declaration: AstNode,
  byName: ReadonlyMap<string, AstNode>,
  implementers: ReadonlySet<AstNode>,
  idOf: (node: AstNode) => string,
): BaseFacts | undefined {
  const superClass = node(declaration['superClass']);
  if (superClass === undefined) {
    return undefined;
  }
  const name = identifierName(superClass) ?? 'an expression';
  const base = byName.get(name);
  if (base === undefined) {
    return { kind: 'unknown', name };
  }
  if (implementers.has(base)) {
    return { kind: 'implementer', id: idOf(base) };
  }
  let saveParameterCount: number | undefined;
  let hasWriteVersion = false;
  for (const cls of [base, ...plainAncestors(base, byName)]) {
    const members = list(node(cls['body'])?.['body']).filter(isInstanceMember);
    const save = members.find((member) => memberName(member) === 'save');
    if (saveParameterCount === undefined && save !== undefined) {
      saveParameterCount = parameterCount(save);
    }
    hasWriteVersion ||= members.some((member) => memberName(member) === 'writeVersion');
  }
  const outermost = [base, ...plainAncestors(base, byName)].at(-1);
  if (
    outermost !== undefined &&
    node(outermost['superClass']) !== undefined &&
    !byName.has(identifierName(outermost['superClass']) ?? '')
  ) {
    return { kind: 'unknown', name: identifierName(outermost['superClass']) ?? name };
  }
  return { kind: 'plain', name, saveParameterCount, hasWriteVersion };
}

function literalFacts(literal: AstNode, name: string, text: string, path: string): ImplementerFacts {
  const properties = list(literal['properties']);
  const save = properties.find(
    (property) =>
      memberName(property) === 'save' && (property.type === 'ObjectMethod' || property.type === 'ObjectProperty'),
  );
  return {
    id: `${path}#${start(literal)}`,
    file: path,
    kind: 'object-literal',
    name,
    line: lineOf(text, start(literal)),
    isAbstract: false,
    base: undefined,
    ownSave: save === undefined ? undefined : saveFacts(save, text, true),
    ownWriteVersion: properties.some((property) => memberName(property) === 'writeVersion'),
    memberNames: properties.flatMap((property) => memberName(property) ?? []),
    body: bodyFacts(bodyOffsets(literal, properties, text), text, true),
  };
}

function bodyOffsets(container: AstNode, members: readonly AstNode[], text: string): BodyOffsets {
  const first = members[0];
  const last = members.at(-1);
  return {
    containerStart: start(container),
    openBrace: text.indexOf('{', start(container)),
    closeBrace: text.lastIndexOf('}', end(container) - 1),
    firstMemberStart: first === undefined ? undefined : start(first),
    lastMemberEnd: last === undefined ? undefined : end(last),
  };
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let index = text.indexOf('\n'); index !== -1 && index < offset; index = text.indexOf('\n', index + 1)) {
    line += 1;
  }
  return line;
}

function importFacts(program: AstNode, text: string, typescript: boolean): ImportFacts {
  const statements = list(program['body']);
  const declarations: ImportDeclarationFacts[] = [];
  for (const statement of statements) {
    if (statement.type === 'ImportDeclaration' && node(statement['source'])?.['value'] === PACKAGE_NAME) {
      const specifiers = list(statement['specifiers']);
      const named = specifiers.filter((specifier) => specifier.type === 'ImportSpecifier');
      const last = named.at(-1);
      let lastSpecifierEnd = last === undefined ? undefined : end(last);
      let trailingComma = false;
      const comma = lastSpecifierEnd === undefined ? null : /^\s*,/.exec(text.slice(lastSpecifierEnd));
      if (comma !== null && lastSpecifierEnd !== undefined) {
        trailingComma = true;
        lastSpecifierEnd += comma[0].length;
      }
      declarations.push({
        typeOnly: statement['importKind'] === 'type',
        namespace: identifierName(
          specifiers.find((specifier) => specifier.type === 'ImportNamespaceSpecifier')?.['local'],
        ),
        named: named.map((specifier) => ({
          imported: identifierName(specifier['imported']) ?? '',
          local: identifierName(specifier['local']) ?? '',
          typeOnly: specifier['importKind'] === 'type',
        })),
        lastSpecifierEnd,
        trailingComma,
        end: end(statement),
      });
    } else if (
      statement.type === 'TSImportEqualsDeclaration' &&
      node(node(statement['moduleReference'])?.['expression'])?.['value'] === PACKAGE_NAME
    ) {
      declarations.push({
        typeOnly: statement['importKind'] === 'type',
        namespace: identifierName(statement['id']),
        named: [],
        lastSpecifierEnd: undefined,
        trailingComma: false,
        end: end(statement),
      });
    }
  }
  const lastImport = statements
    .filter((statement) => statement.type === 'ImportDeclaration' || statement.type === 'TSImportEqualsDeclaration')
    .at(-1);
  const first = statements[0];
  return {
    declarations,
    insertNewImportAt: lastImport === undefined ? (first === undefined ? 0 : start(first)) : end(lastImport),
    afterImport: lastImport !== undefined,
    typescript,
  };
}
