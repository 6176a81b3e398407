import { describeValue } from '../describe-value.js';
import type { JsonValue } from './json-value.js';

/**
 * The canonical JSON text of `value`: no whitespace, object keys sorted by UTF-16 code units, numbers and strings as
 * `JSON.stringify` writes them. Two values have the same canonical text exactly when they are the same JSON value with
 * key order ignored, which is how a guard compares tokens (ADR 0902). Validates while it writes, so a value that would
 * not read back as itself never reaches a store.
 * @throws TypeError naming `what` and the path inside it for anything that is not plain JSON: `undefined`, a function,
 * a symbol, a bigint, `NaN` or an infinity, a `Date` or any other object that is neither a plain object nor an array,
 * an array with holes, a symbol key, or a cycle.
 */
export function canonicalJson(value: unknown, what: string): string {
  try {
    return write(value, []);
  } catch (error) {
    if (error instanceof NotJson) {
      const path = error.path.map((step) => (typeof step === 'number' ? `[${step}]` : `[${JSON.stringify(step)}]`));
      throw new TypeError(`${what}${path.join('')} must be a JSON value: ${error.reason}.`, { cause: error });
    }
    throw error;
  }
}

/** Raised where a value is not JSON; each enclosing level adds its key on the way out, so the hot path builds no paths. */
class NotJson extends Error {
  override readonly name = 'NotJson';
  readonly path: (string | number)[] = [];

  constructor(readonly reason: string) {
    super(reason);
  }
}

function write(value: unknown, ancestors: object[]): string {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) {
        throw new NotJson(`got ${value}, and JSON has no NaN or infinities`);
      }
      // What JSON.stringify writes for a finite number (the spec's ToString, -0 as 0), without its generic entry.
      return String(value);
    case 'object':
      if (value === null) {
        return 'null';
      }
      if (ancestors.includes(value)) {
        throw new NotJson('got an object that contains itself');
      }
      ancestors.push(value);
      try {
        return Array.isArray(value) ? writeArray(value, ancestors) : writeObject(value, ancestors);
      } finally {
        ancestors.pop();
      }
    default:
      throw new NotJson(`got ${shortDescription(value)}, which has no JSON form`);
  }
}

function writeArray(array: readonly unknown[], ancestors: object[]): string {
  let text = '[';
  for (let index = 0; index < array.length; index += 1) {
    try {
      if (!(index in array)) {
        throw new NotJson('got a hole in an array, which JSON.stringify would turn into null');
      }
      text += (index === 0 ? '' : ',') + write(array[index], ancestors);
    } catch (error) {
      addStep(index, error);
      throw error;
    }
  }
  return `${text}]`;
}

function writeObject(object: object, ancestors: object[]): string {
  if (!isPlainObject(object)) {
    const hint = object instanceof Date ? '; store date.toISOString() or date.getTime() instead' : '';
    throw new NotJson(`got ${shortDescription(object)}, and only plain objects and arrays are JSON${hint}`);
  }
  if (Object.getOwnPropertySymbols(object).length > 0) {
    throw new NotJson('got an object with symbol keys, which JSON drops');
  }
  const keys = Object.keys(object);
  if (!isSorted(keys)) {
    keys.sort();
  }
  let text = '{';
  for (const [index, key] of keys.entries()) {
    try {
      text += `${index === 0 ? '' : ','}${JSON.stringify(key)}:${write(object[key], ancestors)}`;
    } catch (error) {
      addStep(key, error);
      throw error;
    }
  }
  return `${text}}`;
}

function isSorted(keys: readonly string[]): boolean {
  for (let index = 1; index < keys.length; index += 1) {
    if ((keys[index - 1] as string) > (keys[index] as string)) {
      return false;
    }
  }
  return true;
}

function addStep(step: string | number, error: unknown): void {
  if (error instanceof NotJson) {
    error.path.unshift(step);
  }
}

/** A plain object from any realm (`{}`, `Object.create(null)`, `JSON.parse` output), never a class instance. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return false;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === null || prototype === Object.prototype || Object.getPrototypeOf(prototype) === null;
}

/** Names a value without printing it whole: a function's source or a large object has no place in a message. */
function shortDescription(value: unknown): string {
  if (typeof value === 'function' || typeof value === 'symbol') {
    return `a ${typeof value}`;
  }
  if (typeof value === 'object' && value !== null) {
    const name: unknown = (value.constructor as { name?: unknown } | undefined)?.name;
    return typeof name === 'string' && name !== '' ? `a ${name}` : 'an object with a custom prototype';
  }
  return describeValue(value);
}

/** Parses canonical JSON text written by {@link canonicalJson}; the result is a fresh value the caller may keep. */
export function parseJson(text: string): JsonValue {
  return JSON.parse(text) as JsonValue;
}
