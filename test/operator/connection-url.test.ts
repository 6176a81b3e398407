import { describe, expect, it } from 'vitest';
import { parsePostgresUrl, parseRedisUrl } from '../../operator/connection-url.js';
import { SecretRedactor } from '../../operator/secret-redactor.js';

describe('connection URLs', () => {
  it('take everything from the URL and show it without the password', () => {
    const redactor = new SecretRedactor();
    expect(parseRedisUrl('rediss://ops:p%40ss%2Fword@[::1]:7000/3', redactor)).toEqual({
      host: '::1',
      port: 7000,
      username: 'ops',
      password: 'p@ss/word',
      db: 3,
      tls: true,
      display: 'rediss://ops:***@[::1]:7000/3',
      user: 'ops',
    });
    expect(parseRedisUrl('redis://cache', redactor)).toMatchObject({
      port: 6379,
      db: 0,
      tls: false,
      password: undefined,
    });
    expect(parsePostgresUrl('postgresql://app:s3cr%3At@db.internal/orders?sslmode=verify-full', redactor)).toEqual({
      host: 'db.internal',
      port: 5432,
      user: 'app',
      password: 's3cr:t',
      database: 'orders',
      sslmode: 'verify-full',
      display: 'postgresql://app:***@db.internal/orders?sslmode=verify-full',
    });
    // Both passwords, as given and as encoded, are now kept out of every message.
    expect(redactor.redact('auth p@ss/word failed for p%40ss%2Fword and s3cr:t')).toBe(
      'auth *** failed for *** and ***',
    );
  });

  it('shows no query value but sslmode, and keeps every credential parameter out of messages, however spelled', () => {
    const redactor = new SecretRedactor();
    const given =
      'postgres://u@h/db?sslmode=disable&PassWord=one&pass%77ord=two%2Fx&sslpassword=th+ree&apikey=four#five';
    expect(() => parsePostgresUrl(given, redactor)).toThrow(
      'postgres://***@h/db?sslmode=disable&PassWord=***&password=***&sslpassword=***&apikey=***#***: ',
    );
    expect(redactor.redact('one two/x two%2Fx th+ree th ree four five')).toBe('*** *** *** *** *** four five');
  });

  it('shows no user name given without a password, which may be a password in its place, and redacts it where quoted', () => {
    const redactor = new SecretRedactor();
    expect(parseRedisUrl('redis://s3cr%40t@cache:6380', redactor)).toMatchObject({
      username: 's3cr@t',
      password: undefined,
      display: 'redis://***@cache:6380',
    });
    expect(parsePostgresUrl('postgres://postgres@db/postgres', redactor).display).toBe('postgres://***@db/postgres');
    // Where a server names the user, as PostgreSQL does; the word elsewhere is left alone.
    expect(
      redactor.redact('password authentication failed for user "s3cr@t"; role "postgres" does not exist in postgres'),
    ).toBe('password authentication failed for user "***"; role "***" does not exist in postgres');
  });

  it('redacts the longest secret first, so no part of one is left', () => {
    const redactor = new SecretRedactor();
    redactor.add('abc');
    redactor.add('abcdef');
    redactor.add('');
    expect(redactor.redact('abcdef abc')).toBe('*** ***');
  });
});
