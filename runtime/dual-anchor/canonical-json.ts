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
  return write(value, what, new Set());
}

function write(value: unknown, path: string, ancestors: Set<object>): string {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) {
        throw notJson(path, `got ${value}, and JSON has no NaN or infinities`);
      }
      return JSON.stringify(value);
    case 'object':
      if (value === null) {
        return 'null';
      }
      if (ancestors.has(value)) {
        throw notJson(path, 'got an object that contains itself');
      }
      ancestors.add(value);
      try {
        return Array.isArray(value) ? writeArray(value, path, ancestors) : writeObject(value, path, ancestors);
      } finally {
        ancestors.delete(value);
      }
    default:
      throw notJson(path, `got ${shortDescription(value)}, which has no JSON form`);
  }
}

function writeArray(array: readonly unknown[], path: string, ancestors: Set<object>): string {
  const items: string[] = [];
  for (let index = 0; index < array.length; index += 1) {
    if (!(index in array)) {
      throw notJson(`${path}[${index}]`, 'got a hole in an array, which JSON.stringify would turn into null');
    }
    items.push(write(array[index], `${path}[${index}]`, ancestors));
  }
  return `[${items.join(',')}]`;
}

function writeObject(object: object, path: string, ancestors: Set<object>): string {
  if (!isPlainObject(object)) {
    const hint = object instanceof Date ? '; store date.toISOString() or date.getTime() instead' : '';
    throw notJson(path, `got ${shortDescription(object)}, and only plain objects and arrays are JSON${hint}`);
  }
  if (Object.getOwnPropertySymbols(object).length > 0) {
    throw notJson(path, 'got an object with symbol keys, which JSON drops');
  }
  const members = Object.keys(object)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${write(object[key], `${path}[${JSON.stringify(key)}]`, ancestors)}`);
  return `{${members.join(',')}}`;
}

/** A plain object from any realm (`{}`, `Object.create(null)`, `JSON.parse` output), never a class instance. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return false;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === null || Object.getPrototypeOf(prototype) === null;
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

function notJson(path: string, reason: string): TypeError {
  return new TypeError(`${path} must be a JSON value: ${reason}.`);
}

/** Parses canonical JSON text written by {@link canonicalJson}; the result is a fresh value the caller may keep. */
export function parseJson(text: string): JsonValue {
  return JSON.parse(text) as JsonValue;
}
