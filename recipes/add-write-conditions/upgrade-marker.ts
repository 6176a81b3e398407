import { PACKAGE_NAME } from '../../vocabulary/index.js';
import type { UpgradeDecision } from './shape-decision.js';

/** The marker every upgraded class or object literal carries once, so that a search finds each decision to make. */
export const TODO_MARKER = `TODO [${PACKAGE_NAME} upgrade]`;

/**
 * Where the marker sends the reader: the recipe doc's section on evaluating a condition atomically in common stores.
 * A path inside the installed package rather than a versioned URL, so upgraded code does not change with releases.
 */
export const MARKER_DOC_POINTER = `${PACKAGE_NAME}/doc/recipes/add-write-conditions.md#evaluating-conditions-atomically`;

/**
 * The marker's text for one upgraded implementer: what the generated code now does, and the decision left to make.
 * One paragraph; the caller wraps it into comment lines at the file's width.
 */
export function markerText(decision: UpgradeDecision): string {
  const done: string[] = [];
  switch (decision.saveShape) {
    case 'refusing':
      done.push('save() now refuses every write, any() included, as this store had no save to send it to');
      break;
    case 'delegating':
    case 'inherited':
    case 'follows-base':
      done.push('save() now refuses every write condition but any()');
      break;
    case 'unchanged':
      break;
  }
  if (decision.addWriteVersion) {
    done.push('writeVersion() reports no version');
  }
  return (
    `${TODO_MARKER} ${done.join(', and ')}. ` +
    'Keep that if this store cannot evaluate conditions; otherwise evaluate notOlderThan() and ifAbsent() ' +
    'atomically with the write and remove this TODO. ' +
    `How common stores do it: ${MARKER_DOC_POINTER}`
  );
}
