import type { ts as Typescript } from 'ts-morph';
import { ts } from './typescript.js';
import { PACKAGE_NAME, type RuntimeExportName } from '../../vocabulary/index.js';
import {
  baseClass,
  importBindings,
  isJavaScriptFile,
  isStorageTypeNode,
  jsDocComments,
  namesImported,
  type BaseClass,
  type StorageResolver,
} from './storage-resolver.js';

const STORAGE: RuntimeExportName = 'CheckpointStorage';

/**
 * Resolves names within one file, without type information: `CheckpointStorage` imported from checkpoint-fencing
 * (named, aliased, through a namespace or `import x = require`), in JavaScript through JSDoc `@typedef
 * {import('checkpoint-fencing').CheckpointStorage}` and `@import`, and interfaces and type aliases in the same file
 * derived from it; an intersection with one of those, or `Readonly<…>` of one, is a storage too. A base class is
 * visible only when it is declared in the same file.
 */
export class StorageResolverByName implements StorageResolver {
  readonly #names = new Set<string>();
  readonly #namespaces = new Set<string>();
  readonly #classes = new Map<string, Typescript.ClassLikeDeclaration>();

  constructor(sourceFile: Typescript.SourceFile) {
    const derived: (Typescript.InterfaceDeclaration | Typescript.TypeAliasDeclaration)[] = [];
    const javascript = isJavaScriptFile(sourceFile);
    const visit = (node: Typescript.Node): void => {
      const imported = importBindings(node);
      if (imported?.specifier === PACKAGE_NAME) {
        if (imported.namespace !== undefined) {
          this.#namespaces.add(imported.namespace);
        }
        for (const { local } of imported.named.filter((element) => element.imported === STORAGE)) {
          this.#names.add(local);
        }
      } else if (ts.isJSDocTypedefTag(node)) {
        const type =
          node.typeExpression && ts.isJSDocTypeExpression(node.typeExpression) ? node.typeExpression.type : undefined;
        if (node.name !== undefined && ts.isIdentifier(node.name) && type !== undefined && isPackageImportType(type)) {
          this.#names.add(node.name.text);
        }
      } else if (ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) {
        derived.push(node);
      } else if ((ts.isClassDeclaration(node) || ts.isClassExpression(node)) && node.name !== undefined) {
        this.#classes.set(node.name.text, node);
      }
      if (javascript) {
        for (const comment of jsDocComments(node)) {
          for (const tag of comment.tags ?? []) {
            visit(tag);
          }
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sourceFile);
    // Interfaces and aliases derived from the storage interface count too; repeat until no new one appears.
    for (let grew = true; grew;) {
      grew = false;
      for (const declaration of derived) {
        const name = declaration.name.text;
        const derives = ts.isInterfaceDeclaration(declaration)
          ? (declaration.heritageClauses ?? []).some((clause) => clause.types.some((type) => this.isStorageType(type)))
          : this.isStorageType(declaration.type);
        if (!this.#names.has(name) && derives) {
          this.#names.add(name);
          grew = true;
        }
      }
    }
  }

  isStorageType(node: Typescript.TypeNode | Typescript.ExpressionWithTypeArguments): boolean {
    return isStorageTypeNode(node, (named) => {
      const name = ts.isExpressionWithTypeArguments(named)
        ? named.expression
        : ts.isTypeReferenceNode(named)
          ? named.typeName
          : undefined;
      return name === undefined
        ? isPackageImportType(named)
        : namesImported(name, STORAGE, this.#names, this.#namespaces);
    });
  }

  isContextuallyStorage(): boolean {
    return false;
  }

  baseClassOf(declaration: Typescript.ClassLikeDeclaration): BaseClass {
    const local = (expression: Typescript.Expression) =>
      ts.isIdentifier(expression) ? this.#classes.get(expression.text) : undefined;
    return baseClass(declaration, local, 'another-file');
  }
}

/** `import('checkpoint-fencing').CheckpointStorage` as a type. */
function isPackageImportType(node: Typescript.TypeNode): boolean {
  return (
    ts.isImportTypeNode(node) &&
    ts.isLiteralTypeNode(node.argument) &&
    ts.isStringLiteral(node.argument.literal) &&
    node.argument.literal.text === PACKAGE_NAME &&
    node.qualifier !== undefined &&
    ts.isIdentifier(node.qualifier) &&
    node.qualifier.text === STORAGE
  );
}
