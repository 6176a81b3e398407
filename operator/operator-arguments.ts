import { parseArgs } from 'node:util';
import { assertSubscriptionId, RedisMembership, type WaitForStandbysOption } from 'checkpoint-fencing';
import {
  assertRedisLeaseKeyPrefix,
  CheckpointKeyLayout,
  defaultRedisLeaseKeyPrefix,
  defaultRedisVersionKeyPrefix,
  redisLeaseKeys,
} from 'checkpoint-fencing/store-layout';
import { parsePostgresUrl, parseRedisUrl, type PostgresAddress, type RedisAddress } from './connection-url.js';
import { OperatorUsageError } from './operator-error.js';
import type { OperatorCommandName } from './operator-usage.js';
import { PostgresOperatorBackend, type PostgresOperatorOptions } from './postgres/postgres-operator-backend.js';
import type { RedisOperatorOptions } from './redis/redis-operator-backend.js';
import type { SecretRedactor } from './secret-redactor.js';

/** The store a command works on, with its settings. */
export type OperatorStore =
  | { readonly kind: 'redis'; readonly address: RedisAddress; readonly options: RedisOperatorOptions }
  | { readonly kind: 'postgres'; readonly address: PostgresAddress; readonly options: PostgresOperatorOptions };

/** A command line, checked: everything a command needs before it connects. */
export interface OperatorInvocation {
  readonly command: OperatorCommandName;
  readonly help: boolean;
  readonly store: OperatorStore | undefined;
  readonly ids: readonly string[];
  readonly json: boolean;
  /** `inspect --prometheus`: the health figures as Prometheus text. */
  readonly prometheus: boolean;
  readonly yes: boolean;
}

const defaultTimeoutMs = 10_000;
const redisOnly = [
  'cluster',
  'key-prefix',
  'version-key-prefix',
  'lease-key-prefix',
  'membership-key-prefix',
  'sentinel',
  'wait-for-replicas',
] as const;
const postgresOnly = ['schema', 'table', 'lease-table', 'membership-table', 'wait-for-standbys'] as const;

/**
 * Reads the arguments of `command`, checking everything that can be checked before connecting: one store, its URL
 * (whose password goes to `redactor` at once), flags that belong to that store and command, the prefixes, tables and
 * ids by the same rules as the storage and the strategy.
 * @throws OperatorUsageError naming the argument and what to write instead.
 */
export function parseOperatorArguments(
  command: OperatorCommandName,
  argv: readonly string[],
  redactor: SecretRedactor,
): OperatorInvocation {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      tokens: true,
      options: {
        redis: { type: 'string' },
        cluster: { type: 'boolean' },
        'key-prefix': { type: 'string' },
        'version-key-prefix': { type: 'string' },
        'lease-key-prefix': { type: 'string' },
        'membership-key-prefix': { type: 'string' },
        sentinel: { type: 'string' },
        'wait-for-replicas': { type: 'string' },
        postgres: { type: 'string' },
        schema: { type: 'string' },
        table: { type: 'string' },
        'lease-table': { type: 'string' },
        'membership-table': { type: 'string' },
        'wait-for-standbys': { type: 'string' },
        'timeout-ms': { type: 'string' },
        json: { type: 'boolean' },
        prometheus: { type: 'boolean' },
        'raise-token': { type: 'boolean' },
        yes: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    // parseArgs names the option, never its value: no password can be in its message.
    throw new OperatorUsageError((error as Error).message.replace(/\.$/u, ''));
  }
  const { values, positionals: ids, tokens } = parsed;
  if (values.help === true) {
    return { command, help: true, store: undefined, ids, json: false, prometheus: false, yes: false };
  }
  refuseRepeatedValues(tokens);
  // The URL first: its password must reach the redactor before any other message could quote it.
  if (values.redis !== undefined && values.postgres !== undefined) {
    throw new OperatorUsageError('give either --redis or --postgres, not both');
  }
  const given = (names: readonly string[]): string[] =>
    names.filter((name) => (values as Record<string, unknown>)[name] !== undefined);
  let store: OperatorStore;
  const timeoutMs = parseTimeout(values['timeout-ms']);
  if (values.redis !== undefined) {
    const address = parseRedisUrl(values.redis, redactor);
    const sentinel = values.sentinel === undefined ? undefined : parseRedisUrl(values.sentinel, redactor, '--sentinel');
    refuseFlags(given(postgresOnly), (flag) => `--${flag} is a setting of --postgres, and this is --redis; drop it`);
    if (values.cluster === true && address.db !== 0) {
      throw new OperatorUsageError(`a Redis Cluster has database 0 only; drop the /${address.db} from the URL`);
    }
    if (sentinel !== undefined && (values.cluster === true || sentinel.db !== 0)) {
      throw new OperatorUsageError(
        values.cluster === true
          ? 'a Redis Cluster has no Sentinel: its node table says which replicas it has; drop --sentinel'
          : `a Sentinel has no databases; drop the /${sentinel.db} from the --sentinel URL`,
      );
    }
    store = { kind: 'redis', address, options: { ...redisOptions(values, timeoutMs), sentinel } };
  } else if (values.postgres !== undefined) {
    const address = parsePostgresUrl(values.postgres, redactor);
    refuseFlags(given(redisOnly), (flag) => `--${flag} is a setting of --redis, and this is --postgres; drop it`);
    store = { kind: 'postgres', address, options: postgresOptions(values, timeoutMs) };
  } else {
    throw new OperatorUsageError('say where the checkpoints are: --redis <url> or --postgres <url>');
  }
  refuseFlags(
    given(commandFlags.filter((flag) => !allowedFlags[command].includes(flag))),
    (flag) => `--${flag} is not an option of ${command}; drop it`,
  );
  if (values.json === true && values.prometheus === true) {
    throw new OperatorUsageError('give either --json or --prometheus, not both');
  }
  if (command === 'repair' && values['raise-token'] !== true) {
    throw new OperatorUsageError('say which repair to make: --raise-token (the only one there is)');
  }
  if (command !== 'inspect' && ids.length === 0) {
    throw new OperatorUsageError(`name the subscriptions to ${command}: ${command} <id…>`);
  }
  for (const id of ids) {
    assertId(store, id);
  }
  return {
    command,
    help: false,
    store,
    ids,
    json: values.json === true,
    prometheus: values.prometheus === true,
    yes: values.yes === true,
  };
}

const commandFlags = ['json', 'prometheus', 'raise-token', 'yes'] as const;
const allowedFlags: Record<OperatorCommandName, readonly string[]> = {
  inspect: ['json', 'prometheus'],
  repair: ['raise-token', 'yes'],
  reset: ['yes'],
};

/**
 * parseArgs keeps the last value of an option given twice: `--postgres A --postgres B` would connect to B alone. A
 * flag without a value given twice means what it means once, so only options that take a value are refused.
 */
function refuseRepeatedValues(tokens: readonly { kind: string; name?: string; value?: string | undefined }[]): void {
  const seen = new Set<string>();
  for (const { kind, name, value } of tokens) {
    if (kind !== 'option' || name === undefined || value === undefined) {
      continue;
    }
    if (seen.has(name)) {
      // The values are not repeated: either may hold a password the redactor has not seen yet.
      throw new OperatorUsageError(`--${name} is given more than once, and only one can be used; give it once`);
    }
    seen.add(name);
  }
}

function refuseFlags(flags: readonly string[], message: (flag: string) => string): void {
  const [flag] = flags;
  if (flag !== undefined) {
    throw new OperatorUsageError(message(flag));
  }
}

function parseTimeout(text: string | undefined): number {
  if (text === undefined) {
    return defaultTimeoutMs;
  }
  const timeoutMs = Number(text);
  if (!/^[1-9][0-9]*$/u.test(text) || timeoutMs > 3_600_000) {
    throw new OperatorUsageError(
      `--timeout-ms must be a whole number of milliseconds from 1 to 3600000; got ${JSON.stringify(text)}`,
    );
  }
  return timeoutMs;
}

function redisOptions(values: Record<string, unknown>, timeoutMs: number): RedisOperatorOptions {
  const options: RedisOperatorOptions = {
    cluster: values['cluster'] === true,
    keyPrefix: optionalString(values['key-prefix']),
    versionKeyPrefix: optionalString(values['version-key-prefix']),
    leaseKeyPrefix: optionalString(values['lease-key-prefix']),
    membershipKeyPrefix: optionalString(values['membership-key-prefix']),
    timeoutMs,
    waitForReplicas: parseWaitForReplicas(values['wait-for-replicas']),
    sentinel: undefined,
  };
  try {
    // The layouts' own checks: a prefix the storage or the strategy would refuse is refused here too.
    new CheckpointKeyLayout(options.keyPrefix ?? '', options.versionKeyPrefix ?? defaultRedisVersionKeyPrefix);
    assertRedisLeaseKeyPrefix(options.leaseKeyPrefix ?? defaultRedisLeaseKeyPrefix);
    if (options.membershipKeyPrefix !== undefined) {
      new RedisMembership({ eval: async () => undefined }, { keyPrefix: options.membershipKeyPrefix });
    }
  } catch (error) {
    throw new OperatorUsageError(`a prefix is refused: ${(error as Error).message.replace(/\.$/u, '')}`);
  }
  return options;
}

/** `--wait-for-replicas`: the application's `waitForReplicas`, `auto` unless given. */
function parseWaitForReplicas(value: unknown): RedisOperatorOptions['waitForReplicas'] {
  if (value === undefined || value === 'auto' || value === 'false') {
    return value === 'false' ? false : 'auto';
  }
  if (typeof value === 'string' && /^[1-9][0-9]{0,2}$/u.test(value)) {
    return Number(value);
  }
  throw new OperatorUsageError(
    `--wait-for-replicas must be auto, false or a whole number of replicas, as the application's waitForReplicas; got ${JSON.stringify(value)}`,
  );
}

function postgresOptions(values: Record<string, unknown>, timeoutMs: number): PostgresOperatorOptions {
  const tables = {
    ...optionalEntry('schema', values['schema']),
    ...optionalEntry('table', values['table']),
    ...optionalEntry('leaseTable', values['lease-table']),
    ...optionalEntry('membershipTable', values['membership-table']),
  };
  try {
    PostgresOperatorBackend.statements(tables);
  } catch (error) {
    throw new OperatorUsageError((error as Error).message.replace(/\.$/u, ''));
  }
  return { ...tables, timeoutMs, waitForStandbys: parseWaitForStandbys(values['wait-for-standbys']) };
}

/** `--wait-for-standbys`: the application's `waitForStandbys`, `auto` unless given. */
function parseWaitForStandbys(value: unknown): WaitForStandbysOption {
  if (value === undefined || value === 'auto') {
    return 'auto';
  }
  if (value === 'false') {
    return false;
  }
  if (typeof value === 'string' && /^[1-9][0-9]{0,2}$/u.test(value)) {
    return Number(value);
  }
  throw new OperatorUsageError(
    `--wait-for-standbys must be auto, false or a whole number of standbys, as the application's waitForStandbys; got ${JSON.stringify(value)}`,
  );
}

/** Refuses an id no storage or lease could hold, by their own rules, before anything connects. */
function assertId(store: OperatorStore, id: string): void {
  try {
    assertSubscriptionId(id);
    if (store.kind === 'redis') {
      const { keyPrefix, versionKeyPrefix, leaseKeyPrefix } = store.options;
      new CheckpointKeyLayout(keyPrefix ?? '', versionKeyPrefix ?? defaultRedisVersionKeyPrefix).keysFor(id);
      redisLeaseKeys(leaseKeyPrefix ?? defaultRedisLeaseKeyPrefix, id);
    }
  } catch (error) {
    throw new OperatorUsageError((error as Error).message.replace(/\.$/u, ''));
  }
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function optionalEntry<Key extends string>(key: Key, value: unknown): Partial<Record<Key, string>> {
  return typeof value === 'string' ? ({ [key]: value } as Partial<Record<Key, string>>) : {};
}
