import { PACKAGE_NAME } from '../../vocabulary/index.js';
import type { ImportFacts } from './implementer-facts.js';
import type { SourceStyle } from './source-style.js';
import type { TextEdit } from './text-edit.js';

/** How generated code refers to the two names it needs, e.g. `CheckpointWriteCondition` or `cf.CheckpointWriteCondition`. */
export interface GeneratedNames {
  /** The type of a condition; `undefined` in JavaScript, where no type is written. */
  readonly conditionType: string | undefined;
  readonly unsupportedError: string;
}

/** What the generated members of one file refer to. */
export interface ImportNeeds {
  readonly conditionType: boolean;
  readonly unsupportedError: boolean;
}

/**
 * Finds or adds the imports generated code needs: reuses a namespace import or an existing (possibly aliased) named
 * import, merges missing names into the file's existing value import from `checkpoint-fencing`, and adds one new
 * import only when there is nowhere to merge into.
 */
export function planImports(
  source: string,
  facts: ImportFacts,
  style: SourceStyle,
  needs: ImportNeeds,
): { names: GeneratedNames; edits: TextEdit[] } {
  const wantType = needs.conditionType && facts.typescript;
  const namespace = facts.declarations.find(
    (declaration) => declaration.namespace !== undefined && !declaration.typeOnly,
  )?.namespace;
  if (namespace !== undefined) {
    return {
      names: {
        conditionType: facts.typescript ? `${namespace}.CheckpointWriteCondition` : undefined,
        unsupportedError: `${namespace}.UnsupportedWriteConditionError`,
      },
      edits: [],
    };
  }
  const named = facts.declarations.flatMap((declaration) =>
    declaration.named.map((specifier) => ({ ...specifier, declarationTypeOnly: declaration.typeOnly })),
  );
  const existingType = named.find((specifier) => specifier.imported === 'CheckpointWriteCondition')?.local;
  const existingError = named.find(
    (specifier) =>
      specifier.imported === 'UnsupportedWriteConditionError' && !specifier.typeOnly && !specifier.declarationTypeOnly,
  )?.local;
  const names: GeneratedNames = {
    conditionType: facts.typescript ? (existingType ?? 'CheckpointWriteCondition') : undefined,
    unsupportedError: existingError ?? 'UnsupportedWriteConditionError',
  };
  const missingType = wantType && existingType === undefined;
  const missingError = needs.unsupportedError && existingError === undefined;
  const edits: TextEdit[] = [];
  const valueImport = facts.declarations.find(
    (declaration) => !declaration.typeOnly && declaration.lastSpecifierEnd !== undefined,
  );
  const typeImport = facts.declarations.find(
    (declaration) => declaration.typeOnly && declaration.lastSpecifierEnd !== undefined,
  );

  const add = (at: number, trailingComma: boolean, specifiers: string[]): void => {
    if (specifiers.length > 0) {
      edits.push({
        start: at,
        end: at,
        text: trailingComma ? ` ${specifiers.join(', ')},` : `, ${specifiers.join(', ')}`,
      });
    }
  };
  const newImportSpecifiers: string[] = [];
  if (valueImport?.lastSpecifierEnd !== undefined) {
    add(valueImport.lastSpecifierEnd, valueImport.trailingComma, [
      ...(missingType ? ['type CheckpointWriteCondition'] : []),
      ...(missingError ? ['UnsupportedWriteConditionError'] : []),
    ]);
  } else {
    if (missingType && typeImport?.lastSpecifierEnd !== undefined) {
      add(typeImport.lastSpecifierEnd, typeImport.trailingComma, ['CheckpointWriteCondition']);
    } else if (missingType) {
      newImportSpecifiers.push('type CheckpointWriteCondition');
    }
    if (missingError) {
      newImportSpecifiers.push('UnsupportedWriteConditionError');
    }
  }
  if (newImportSpecifiers.length > 0) {
    const statement = `import { ${newImportSpecifiers.join(', ')} } from ${style.quote}${PACKAGE_NAME}${style.quote}${style.semicolons ? ';' : ''}`;
    const anchor = typeImport?.end;
    if (anchor !== undefined) {
      edits.push({ start: anchor, end: anchor, text: `${style.newline}${statement}` });
    } else if (facts.afterImport) {
      edits.push({
        start: facts.insertNewImportAt,
        end: facts.insertNewImportAt,
        text: `${style.newline}${statement}`,
      });
    } else {
      const at = attachedCommentsStart(source, facts.insertNewImportAt);
      edits.push({ start: at, end: at, text: `${statement}${style.newline}${style.newline}` });
    }
  }
  return { names, edits };
}

/**
 * Where the comments directly above the statement at `offset` begin (a JSDoc block, line comments), so that a new
 * import goes above them instead of separating a class from its documentation. A blank line ends the run.
 */
function attachedCommentsStart(source: string, offset: number): number {
  let at = offset;
  for (;;) {
    const before = source.slice(0, at);
    const gap = /[ \t]*\r?\n?[ \t]*$/.exec(before)?.[0] ?? '';
    const end = at - gap.length;
    const block = before.slice(0, end).endsWith('*/') ? source.lastIndexOf('/*', end - 2) : -1;
    const lineStart = source.lastIndexOf('\n', end - 1) + 1;
    const line = /^[ \t]*\/\/.*$/.test(source.slice(lineStart, end))
      ? lineStart + (/^[ \t]*/.exec(source.slice(lineStart))?.[0].length ?? 0)
      : -1;
    const next = block !== -1 ? block : line;
    if (next === -1 || next >= at) {
      return at;
    }
    at = next;
  }
}
