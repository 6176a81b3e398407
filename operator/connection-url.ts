import { OperatorUsageError } from './operator-error.js';
import type { SecretRedactor } from './secret-redactor.js';

/** Where a Redis command connects: everything comes from the URL given, nothing from defaults or the environment. */
export interface RedisAddress {
  readonly host: string;
  readonly port: number;
  readonly username: string | undefined;
  readonly password: string | undefined;
  readonly db: number;
  /** `rediss://`: TLS, with the server's certificate checked against `host`. */
  readonly tls: boolean;
  /** The URL with its password replaced by `***`, for every message. */
  readonly display: string;
}

/** Where a PostgreSQL command connects. */
export interface PostgresAddress {
  readonly host: string;
  readonly port: number;
  readonly user: string | undefined;
  readonly password: string | undefined;
  readonly database: string;
  readonly sslmode: 'disable' | 'require' | 'verify-full';
  readonly display: string;
}

const redisForm = 'redis://[user[:password]@]host[:port][/db] (rediss:// for TLS)';
const postgresForm = 'postgres://[user[:password]@]host[:port]/database[?sslmode=disable|require|verify-full]';
const sslModes = ['disable', 'require', 'verify-full'] as const;

/**
 * Reads a `--redis` URL (or the URL of another option, `flag`: `--sentinel`). The password is registered with
 * `redactor` before anything can fail, and no message ever repeats the URL as given.
 * @throws OperatorUsageError for anything but the one form accepted.
 */
export function parseRedisUrl(text: string, redactor: SecretRedactor, flag = '--redis'): RedisAddress {
  const url = parseUrl(text, flag, redisForm, redactor);
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new OperatorUsageError(
      `${flag} ${displayUrl(url)}: the scheme must be redis:// or rediss://; use ${redisForm}`,
    );
  }
  const path = url.pathname.replace(/^\//u, '');
  if (!/^(0|[1-9][0-9]{0,4})?$/u.test(path)) {
    throw new OperatorUsageError(
      `${flag} ${displayUrl(url)}: the path must be a database number such as /0; use ${redisForm}`,
    );
  }
  const address = commonParts(url, flag, redisForm, 6379);
  return {
    ...address,
    username: address.user,
    db: path === '' ? 0 : Number(path),
    tls: url.protocol === 'rediss:',
  };
}

/**
 * Reads a `--postgres` URL; the database must be named, so that no environment variable picks one.
 * @throws OperatorUsageError for anything but the one form accepted.
 */
export function parsePostgresUrl(text: string, redactor: SecretRedactor): PostgresAddress {
  const url = parseUrl(text, '--postgres', postgresForm, redactor, ['sslmode']);
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new OperatorUsageError(
      `--postgres ${displayUrl(url)}: the scheme must be postgres:// or postgresql://; use ${postgresForm}`,
    );
  }
  const database = decodedComponent(url.pathname.replace(/^\//u, ''), '--postgres', 'database name', postgresForm);
  if (database === '' || database.includes('/')) {
    throw new OperatorUsageError(`--postgres ${displayUrl(url)}: name the database in the path; use ${postgresForm}`);
  }
  const sslmode = url.searchParams.get('sslmode') ?? 'disable';
  if (!isSslMode(sslmode)) {
    throw new OperatorUsageError(
      `--postgres ${displayUrl(url)}: sslmode must be ${sslModes.join(', ')}; got ${JSON.stringify(sslmode)}`,
    );
  }
  return { ...commonParts(url, '--postgres', postgresForm, 5432), database, sslmode };
}

function parseUrl(
  text: string,
  flag: string,
  form: string,
  redactor: SecretRedactor,
  parameters: readonly string[] = [],
): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    // The text as given may hold a password this parser could not find, so it is not repeated.
    throw new OperatorUsageError(`${flag}: not a URL; use ${form}`);
  }
  redactor.add(url.password);
  const password = decodedComponent(url.password, flag, 'password', form);
  redactor.add(password);
  if (url.password === '') {
    redactor.addLoneUserName(decodedComponent(url.username, flag, 'user name', form));
  }
  const query = queryParameters(url);
  for (const { name, value, written } of query) {
    if (isCredentialParameter(name)) {
      redactor.add(value);
      redactor.add(written);
    }
  }
  if (url.hostname === '') {
    // Without a host the text is no user info, host and path (`redis:/:secret@host` keeps its password in the path),
    // so no part of it is shown.
    throw new OperatorUsageError(`${flag}: the URL names no host; use ${form}`);
  }
  const unknown = query.map(({ name }) => name).find((name) => !parameters.includes(name));
  if (unknown !== undefined && isCredentialParameter(unknown)) {
    throw new OperatorUsageError(
      `${flag} ${displayUrl(url)}: the commands read no password from the parameter ${JSON.stringify(unknown)}; ` +
        `give it in the user info instead: ${form}`,
    );
  }
  if (unknown !== undefined || url.hash !== '') {
    throw new OperatorUsageError(
      `${flag} ${displayUrl(url)}: ${unknown !== undefined ? `unsupported parameter ${JSON.stringify(unknown)}` : 'a fragment'} ` +
        `would be ignored or could send the connection elsewhere; use ${form}`,
    );
  }
  return url;
}

/** A query parameter: its name and value as a client reads them, and its value as written in the URL. */
interface QueryParameter {
  readonly name: string;
  readonly value: string;
  readonly written: string;
}

function queryParameters(url: URL): QueryParameter[] {
  return url.search
    .slice(1)
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => {
      const [name = '', value = ''] = [...new URLSearchParams(pair)][0] ?? [];
      return { name, value, written: pair.includes('=') ? pair.slice(pair.indexOf('=') + 1) : '' };
    });
}

/**
 * Whether a client may read the query parameter `name` as a credential, whatever its case: pg copies every parameter
 * into its config and reads `password`; ioredis copies every one into its options and reads `password` and
 * `sentinelPassword`; libpq reads `password` and `sslpassword` (the client key's passphrase); `pass`, `passwd` and
 * `pwd` are spellings of the same. `sslkey`, `sslcert` and `sslrootcert` name files, which are no secrets.
 */
function isCredentialParameter(name: string): boolean {
  return /pass|pwd|secret/u.test(name.toLowerCase());
}

function decodedComponent(text: string, flag: string, what: string, form: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new OperatorUsageError(`${flag}: the ${what} in the URL is not valid percent-encoding; use ${form}`);
  }
}

function commonParts(
  url: URL,
  flag: string,
  form: string,
  defaultPort: number,
): { host: string; port: number; user: string | undefined; password: string | undefined; display: string } {
  return {
    host: url.hostname.replace(/^\[(.*)\]$/u, '$1'),
    port: url.port === '' ? defaultPort : Number(url.port),
    user: url.username === '' ? undefined : decodedComponent(url.username, flag, 'user name', form),
    password: url.password === '' ? undefined : decodedComponent(url.password, flag, 'password', form),
    display: displayUrl(url),
  };
}

/**
 * `url` as text with its password, its fragment and the value of every query parameter but `sslmode` replaced by
 * `***`: the clients read parameters they do not document (pg and ioredis copy every one into their options), so any
 * of them may hold a credential. So is a user name given without a password, which may be a password written in the
 * user-name place (`redis://secret@host`, as redis-cli reads a password).
 */
function displayUrl(url: URL): string {
  const shown = new URL(url.href);
  if (shown.password !== '') {
    shown.password = '***';
  } else if (shown.username !== '') {
    shown.username = '***';
  }
  shown.search = new URLSearchParams(
    [...url.searchParams].map(([name, value]): [string, string] => [
      name,
      shownParameters.includes(name) ? value : '***',
    ]),
  ).toString();
  if (shown.hash !== '') {
    shown.hash = '***';
  }
  return shown.href;
}

/** The query parameters whose values a message may show: settings, never a credential. */
const shownParameters: readonly string[] = ['sslmode'];

function isSslMode(mode: string): mode is PostgresAddress['sslmode'] {
  return (sslModes as readonly string[]).includes(mode);
}
