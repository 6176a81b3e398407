import { AST_NODE_TYPES, AST_TOKEN_TYPES } from '@typescript-eslint/types';
import type { TSESTree } from '@typescript-eslint/utils';
import { parentOf } from '../descendant-nodes.js';
import { once } from '../memo.js';
import { isRuntimeModule } from './checkpoint-fencing-imports.js';
import type { ContractName } from './storage-declarations.js';

// JavaScript states what TypeScript writes as syntax in JSDoc comments. Without types the rule reads the comments'
// text, recognising the forms the jscodeshift transform resolves (doc/recipes/add-write-conditions.md).

type ClassNode = TSESTree.ClassDeclaration | TSESTree.ClassExpression;

const IMPLEMENTS_TAG = /@implements\s*\{\s*([^}]+?)\s*\}/gu;
const IMPORT_TAG = /@import\s+(\{[^}]*\}|\*\s*as\s+[\w$]+)\s+from\s+(['"])([^'"]+)\2/gu;
const TYPEDEF_TAG = /@typedef\s*\{\s*import\(\s*(['"])([^'"]+)\1\s*\)\.([\w$]+)\s*\}\s*([\w$]+)/gu;
const INLINE_IMPORT = /^import\(\s*(['"])([^'"]+)\1\s*\)\.([\w$]+)$/u;

/**
 * Whether a JSDoc comment right above `classNode` says `@implements {X}` where `X` is checkpoint-fencing's `contract`:
 * `import('checkpoint-fencing').CheckpointStorage` itself, or a name this file's JSDoc gives it
 * (`@import { CheckpointStorage as Store } from 'checkpoint-fencing'`, `@import * as cf from 'checkpoint-fencing'`
 * then `cf.CheckpointStorage`, `@typedef {import('checkpoint-fencing').CheckpointStorage} Store`).
 */
export function jsDocImplementsContract(classNode: ClassNode, contract: ContractName): boolean {
  const program = programOf(classNode);
  if (!hasImplementsTag(program)) {
    return false;
  }
  const comments = program.comments ?? [];
  const implemented = attachedJsDoc(classNode, comments).flatMap((comment) =>
    [...comment.value.matchAll(IMPLEMENTS_TAG)].map((match) => match[1] ?? ''),
  );
  if (implemented.length === 0) {
    return false;
  }
  const names = contractNames(comments, contract);
  return implemented.some((name) => {
    const inline = INLINE_IMPORT.exec(name);
    return inline === null ? names.has(name) : isRuntimeModule(inline[2]) && inline[3] === contract;
  });
}

/** Whether any comment of the file has an `@implements` tag: most files have none, and then no class needs looking at. */
const hasImplementsTag = once((program: TSESTree.Program) =>
  (program.comments ?? []).some((comment) => comment.value.includes('@implements')),
);

function programOf(node: TSESTree.Node): TSESTree.Program {
  let current = node;
  for (let parent = parentOf(current); parent !== undefined; parent = parentOf(parent)) {
    current = parent;
  }
  return current as TSESTree.Program;
}

/** The JSDoc comments between the statement before the class (or its `export`) and the class. */
function attachedJsDoc(classNode: ClassNode, comments: readonly TSESTree.Comment[]): TSESTree.Comment[] {
  const exported =
    classNode.parent.type === AST_NODE_TYPES.ExportNamedDeclaration ||
    classNode.parent.type === AST_NODE_TYPES.ExportDefaultDeclaration;
  const target: TSESTree.Node = exported ? classNode.parent : classNode;
  const container = parentOf(target);
  const siblings: readonly TSESTree.Node[] =
    container !== undefined && 'body' in container && Array.isArray(container.body) ? container.body : [];
  const previous = siblings.filter((sibling) => sibling.range[1] <= target.range[0]).at(-1);
  // Older parsers (espree before 11, typescript-eslint's parser 8.0 and before) start a Program's range at its first
  // token, leaving the comments above the first statement outside it.
  const after = previous?.range[1] ?? (container?.type === AST_NODE_TYPES.Program ? 0 : (container?.range[0] ?? 0));
  return comments.filter(
    (comment) =>
      comment.type === AST_TOKEN_TYPES.Block &&
      comment.value.startsWith('*') &&
      comment.range[0] >= after &&
      comment.range[1] <= target.range[0],
  );
}

/** The names this file's JSDoc gives checkpoint-fencing's `contract`. */
function contractNames(comments: readonly TSESTree.Comment[], contract: ContractName): Set<string> {
  const names = new Set<string>();
  for (const comment of comments) {
    for (const [, clause = '', , from] of comment.value.matchAll(IMPORT_TAG)) {
      if (!isRuntimeModule(from)) {
        continue;
      }
      const namespace = /^\*\s*as\s+([\w$]+)$/u.exec(clause);
      if (namespace !== null) {
        names.add(`${namespace[1] ?? ''}.${contract}`);
        continue;
      }
      for (const specifier of clause.slice(1, -1).split(',')) {
        const [imported, local = imported] = specifier.trim().split(/\s+as\s+/u);
        if (imported === contract && local !== undefined) {
          names.add(local);
        }
      }
    }
    for (const [, , from, imported, local] of comment.value.matchAll(TYPEDEF_TAG)) {
      if (isRuntimeModule(from) && imported === contract && local !== undefined) {
        names.add(local);
      }
    }
  }
  return names;
}
