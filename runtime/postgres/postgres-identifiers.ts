import { describeValue } from '../describe-value.js';

/** PostgreSQL truncates identifiers longer than NAMEDATALEN - 1 bytes; a longer name would silently name another table. */
const maxIdentifierBytes = 63;
const plainIdentifier = /^[A-Za-z_][A-Za-z0-9_]*$/u;

/** A table name, checked and quoted once, so no statement ever interpolates an unchecked name. */
export interface QualifiedTableName {
  /** `"schema"."table"` or `"table"`, ready to put into a statement. */
  readonly sql: string;
  /** For messages: `schema.table` or `table`. */
  readonly display: string;
  /** The schema as given, for messages; `undefined` when the server's `search_path` decides. */
  readonly schema?: string;
}

/** How an error message names the two settings: `options.table`, or a command-line flag such as `--lease-table`. */
export interface TableSettingNames {
  readonly table: string;
  readonly schema: string;
}

/**
 * Validates `table` and `schema` (letters, digits and underscores, not starting with a digit, at most 63 bytes) and
 * double-quotes them, so they are used exactly as given. `option` names the settings in the message: a string
 * stands for `<option>.table` and `<option>.schema`.
 * @throws TypeError naming the option, the value and the rule.
 */
export function qualifiedTableName(
  option: string | TableSettingNames,
  table: unknown,
  schema: unknown,
): QualifiedTableName {
  const names = typeof option === 'string' ? { table: `${option}.table`, schema: `${option}.schema` } : option;
  const quotedTable = quotedIdentifier(names.table, table);
  if (schema === undefined) {
    return { sql: quotedTable, display: table as string };
  }
  const quotedSchema = quotedIdentifier(names.schema, schema);
  return {
    sql: `${quotedSchema}.${quotedTable}`,
    display: `${schema as string}.${table as string}`,
    schema: schema as string,
  };
}

/**
 * A constraint name made from a validated table name and a suffix, quoted. The table part is shortened so the whole
 * stays within 63 bytes with the suffix intact: two constraints of one long-named table never collide.
 */
export function derivedIdentifier(tableName: string, suffix: string): string {
  return `"${tableName.slice(0, maxIdentifierBytes - suffix.length - 1)}_${suffix}"`;
}

function quotedIdentifier(option: string, name: unknown): string {
  if (typeof name !== 'string' || !plainIdentifier.test(name) || Buffer.byteLength(name) > maxIdentifierBytes) {
    throw new TypeError(
      `${option} must be a plain PostgreSQL identifier (letters, digits and underscores, not starting with a digit, at most ` +
        `${maxIdentifierBytes} characters), got ${describeValue(name)}. It is quoted and used exactly as given, never ` +
        'interpolated unchecked; pick a name such as "app_checkpoints".',
    );
  }
  return `"${name}"`;
}
