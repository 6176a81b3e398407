/** A JSON object: string keys, JSON values. */
export interface JsonObject {
  readonly [key: string]: JsonValue;
}

/** A value that survives `JSON.stringify` and `JSON.parse` unchanged (up to object key order). */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | JsonObject;
