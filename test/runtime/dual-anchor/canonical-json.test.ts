import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../runtime/dual-anchor-entry.js';

describe('canonicalJson', () => {
  it('sorts object keys by UTF-16 code units at every depth and writes no whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 0, y: 1 }], c: null }, 10: 'ten', 9: 'nine' }, 'token')).toBe(
      '{"10":"ten","9":"nine","a":{"c":null,"d":[3,{"y":1,"z":0}]},"b":1}',
    );
  });

  it('gives the same text for the same JSON value whatever the key order, and different texts otherwise', () => {
    expect(canonicalJson({ a: 1, b: [1, 2] }, 'x')).toBe(canonicalJson({ b: [1, 2], a: 1 }, 'x'));
    expect(canonicalJson([1, 2], 'x')).not.toBe(canonicalJson([2, 1], 'x'));
    expect(canonicalJson(1, 'x')).not.toBe(canonicalJson('1', 'x'));
    expect(canonicalJson(1.0, 'x')).toBe(canonicalJson(1, 'x'));
  });

  it('writes every finite number exactly as JSON.stringify does, -0 as 0', () => {
    const numbers = [
      0,
      -0,
      1,
      -1,
      0.1,
      1 / 3,
      1e21,
      1e-7,
      123_456_789_012_345_680_000,
      5e-324,
      Number.MAX_VALUE,
      -1.5e300,
    ];
    expect(numbers.map((value) => canonicalJson([value, { value }], 'token'))).toEqual(
      numbers.map((value) => JSON.stringify([value, { value }])),
    );
    expect(canonicalJson(-0, 'token')).toBe('0');
  });

  it('escapes a lone surrogate, so the text is well-formed and reads back as the same string', () => {
    const text = canonicalJson({ key: 'a\uD800b' }, 'token');
    expect(text).toBe('{"key":"a\\ud800b"}');
    expect(JSON.parse(text)).toEqual({ key: 'a\uD800b' });
  });

  it('accepts plain objects from another realm and objects without a prototype', () => {
    expect(canonicalJson(runInNewContext('({ b: [1], a: { c: true } })'), 'token')).toBe('{"a":{"c":true},"b":[1]}');
    const bare = Object.create(null) as Record<string, unknown>;
    bare['k'] = 'v';
    expect(canonicalJson(bare, 'token')).toBe('{"k":"v"}');
  });

  it('keeps a "__proto__" own key as data', () => {
    const value = JSON.parse('{"__proto__":{"polluted":true},"a":1}') as unknown;
    expect(canonicalJson(value, 'token')).toBe('{"__proto__":{"polluted":true},"a":1}');
  });

  for (const [label, value, message] of [
    ['undefined', undefined, 'token must be a JSON value: got undefined, which has no JSON form.'],
    [
      'a nested function',
      { a: [() => 1] },
      'token["a"][0] must be a JSON value: got a function, which has no JSON form.',
    ],
    ['a bigint', { n: 1n }, 'token["n"] must be a JSON value: got 1n, which has no JSON form.'],
    ['NaN', [Number.NaN], 'token[0] must be a JSON value: got NaN, and JSON has no NaN or infinities.'],
    [
      'a Date',
      { at: new Date(0) },
      'token["at"] must be a JSON value: got a Date, and only plain objects and arrays are JSON; store date.toISOString() or date.getTime() instead.',
    ],
    ['a Map', new Map(), 'token must be a JSON value: got a Map, and only plain objects and arrays are JSON.'],
    [
      'a symbol key',
      { [Symbol('s')]: 1 },
      'token must be a JSON value: got an object with symbol keys, which JSON drops.',
    ],
  ] as const) {
    it(`rejects ${label} with a TypeError naming the path`, () => {
      expect(() => canonicalJson(value, 'token')).toThrow(new TypeError(message));
    });
  }

  it('rejects a cycle and a hole, naming where they are', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic['inner'] = { back: cyclic };
    expect(() => canonicalJson(cyclic, 'token')).toThrow(
      'token["inner"]["back"] must be a JSON value: got an object that contains itself.',
    );
    const holey: unknown[] = [];
    holey[1] = 'x';
    expect(() => canonicalJson({ list: holey }, 'token')).toThrow(
      'token["list"][0] must be a JSON value: got a hole in an array, which JSON.stringify would turn into null.',
    );
  });

  it('accepts the same object twice when it is not its own ancestor', () => {
    const shared = { n: 1 };
    expect(canonicalJson({ a: shared, b: [shared] }, 'token')).toBe('{"a":{"n":1},"b":[{"n":1}]}');
  });
});
