import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtPackage } from '../support/built-package.js';
import { fencedCodeBlocks } from '../support/markdown.js';
import { startRedisServer, type RedisServerProcess } from '../support/redis/index.js';
import { temporaryDirectory } from '../support/temporary-directory.js';

// The runtime README's first example says it is a whole program that runs against a local Redis: run it, twice, as
// its text says to, against the built package. The one change is the port (`new Redis()` is 127.0.0.1:6379).

const REPOSITORY = resolve(import.meta.dirname, '../..');

/** A node running the README's program, and what it printed so far. */
interface ProgramNode {
  readonly child: ChildProcess;
  readonly output: () => string;
  /** Resolves once the output matches `pattern`; rejects with the output after `timeoutMs`. */
  readonly printed: (pattern: RegExp, timeoutMs: number) => Promise<void>;
  readonly exited: Promise<number | null>;
}

function startNode(program: string, port: number): ProgramNode {
  const child = spawn(process.execPath, [program], { env: { ...process.env, REDIS_PORT: String(port) } });
  let output = '';
  const listeners = new Set<() => void>();
  const collect = (chunk: Buffer): void => {
    output += chunk.toString();
    for (const listener of listeners) {
      listener();
    }
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  return {
    child,
    output: () => output,
    printed: (pattern, timeoutMs) =>
      new Promise((resolvePrinted, reject) => {
        const check = (): void => {
          if (pattern.test(output)) {
            listeners.delete(check);
            clearTimeout(timer);
            resolvePrinted();
          }
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`no ${String(pattern)} within ${timeoutMs} ms; the program printed:\n${output}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      }),
    exited: new Promise((resolveExit) => {
      child.on('exit', resolveExit);
    }),
  };
}

describe("the runtime README's DurableSubscription program", { timeout: 120_000 }, () => {
  let server: RedisServerProcess;
  let redis: Redis;
  let program: string;
  const nodes: ProgramNode[] = [];

  beforeAll(async () => {
    const block = fencedCodeBlocks(readFileSync(join(REPOSITORY, 'runtime/README.md'), 'utf8'), 'ts')[0]?.code ?? '';
    expect(block.split('new Redis()').length - 1).toBe(1);
    const project = temporaryDirectory('readme-program');
    mkdirSync(join(project, 'node_modules'));
    symlinkSync(builtPackage('runtime'), join(project, 'node_modules/checkpoint-fencing'), 'dir');
    symlinkSync(join(REPOSITORY, 'node_modules/ioredis'), join(project, 'node_modules/ioredis'), 'dir');
    program = join(project, 'orders-projection.mjs');
    const source = block.replace('new Redis()', 'new Redis(Number(process.env.REDIS_PORT))');
    const compiled = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    });
    writeFileSync(program, compiled.outputText);
    server = await startRedisServer();
    redis = new Redis(server.port, server.host);
  });

  afterAll(async () => {
    for (const node of nodes) {
      node.child.kill('SIGKILL');
    }
    redis.disconnect();
    await server.stop();
  });

  const addOrder = (orderId: string, total: number): Promise<string | null> =>
    redis.xadd('orders', '*', 'order', JSON.stringify({ orderId, total }));

  it('delivers on one node, hands over on Ctrl-C, and the next node resumes from the stored checkpoint', async () => {
    await addOrder('o-1', 42);
    const first = startNode(program, server.port);
    nodes.push(first);
    await first.printed(/^order o-1 at \d+-\d+, fencing token 0$/mu, 15_000);

    const second = startNode(program, server.port);
    nodes.push(second);
    await addOrder('o-2', 7);
    await first.printed(/^order o-2 at \d+-\d+, fencing token 0$/mu, 15_000);

    first.child.kill('SIGINT');
    expect(await first.exited).toBe(0);

    await addOrder('o-3', 3);
    // Its next try for the lease (a third of 20 s), then the takeover grace (two thirds of it): about 20 s at most.
    await second.printed(/^order o-3 at \d+-\d+, fencing token 1$/mu, 40_000);
    second.child.kill('SIGINT');
    expect(await second.exited).toBe(0);

    expect(second.output()).not.toMatch(/order o-[12] /u);
    expect(await redis.mget('total:o-1', 'total:o-2', 'total:o-3')).toEqual(['42', '7', '3']);
  });
});
