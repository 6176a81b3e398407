import { describe, expect, it } from 'vitest';
import { InMemoryMembership, PostgresMembership, RedisMembership } from '../../../runtime/index.js';
import { untyped } from '../../../runtime/testing/untyped.js';

const redisClient = { eval: async () => Promise.resolve([1]) };
const postgresClient = { query: async () => Promise.resolve({ rows: [], rowCount: 0 }) };

describe('membership options', () => {
  it.each([0, -1, 1.5, Number.NaN, '1000'])('refuses memberTimeMs %j', (memberTimeMs) => {
    expect(() => new InMemoryMembership({ memberTimeMs: untyped(memberTimeMs) })).toThrow(RangeError);
  });

  it('defaults memberTimeMs to 10 s', () => {
    expect(new InMemoryMembership().memberTimeMs).toBe(10_000);
    expect(new RedisMembership(redisClient).memberTimeMs).toBe(10_000);
  });

  it('refuses a Redis client without eval, and a key prefix with braces, naming both', () => {
    expect(() => new RedisMembership(untyped({}))).toThrow(/ioredis client/u);
    expect(() => new RedisMembership(redisClient, { keyPrefix: 'app:{x}:' })).toThrow(/"app:\{x\}:"/u);
  });

  it('refuses a PostgreSQL client without query and a table name that is not a plain identifier', () => {
    expect(() => new PostgresMembership(untyped({}))).toThrow(/PostgresMembership needs a node-postgres client/u);
    expect(() => new PostgresMembership(postgresClient, { table: 'members; DROP TABLE x' })).toThrow(/table/u);
    expect(() => PostgresMembership.createTableSql({ schema: 'a-b' })).toThrow(TypeError);
  });

  it('writes the CREATE TABLE of the table and schema it is given', () => {
    expect(PostgresMembership.createTableSql()).toMatch(/^CREATE TABLE IF NOT EXISTS "checkpoint_fencing_members" \(/u);
    expect(PostgresMembership.createTableSql({ schema: 'app', table: 'members' })).toContain('"app"."members"');
  });
});
