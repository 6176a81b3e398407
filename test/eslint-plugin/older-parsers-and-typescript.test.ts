import path from 'node:path';
import tsParser from '@typescript-eslint/parser';
import type { ParserServices, ParserServicesWithTypeInformation } from '@typescript-eslint/utils';
import { ESLint, Linter } from 'eslint';
import type * as ts from 'typescript';
import { afterEach, describe, expect, it, vi } from 'vitest';
import plugin from '../../eslint-plugin/index.js';
import { fixtureCompilerOptions } from '../recipes/support/fixture-project.js';
import { temporaryProject } from '../support/temporary-directory.js';
import { consumerWithStorageNamedCache } from './shared-fixtures.js';

// What the rules do on what older parsers and TypeScripts give them: an older parser's services, an older checker, an
// older parser's syntax tree, made here from the current ones. The process test
// typescript-and-parser-matrix.process.test.ts runs the real old versions.

const TYPE_AWARE = ['consumer.ts:4 checkpoint-fencing/no-unfenced-write'];
const SYNTACTIC = [...TYPE_AWARE, 'consumer.ts:11 checkpoint-fencing/no-unfenced-write'];

/** typescript-eslint's parser, with its services changed by `change`. */
function parserWith(change: (services: ParserServices) => ParserServices): Linter.Parser {
  return {
    meta: { name: 'parser-with-changed-services' },
    parseForESLint(code: string, options: tsParser.ParserOptions) {
      const result = tsParser.parseForESLint(code, options);
      return { ...result, services: change(result.services) };
    },
  } as Linter.Parser;
}

/** `file:line rule` of what `recommended-type-checked` reports on the consumer, parsed by `parser`. */
async function lint(parser: Linter.Parser): Promise<string[]> {
  const root = temporaryProject('missing-type-apis', {
    'consumer.ts': consumerWithStorageNamedCache,
    'tsconfig.json': JSON.stringify({ compilerOptions: fixtureCompilerOptions(), include: ['consumer.ts'] }),
  });
  const eslint = new ESLint({
    cwd: root,
    overrideConfigFile: true,
    overrideConfig: [
      {
        files: ['**/*.ts'],
        languageOptions: { parser, parserOptions: { projectService: true, tsconfigRootDir: root } },
      },
      plugin.configs['recommended-type-checked'],
    ],
  });
  const results = await eslint.lintFiles(['consumer.ts']);
  return results.flatMap((result) =>
    result.messages.map(
      (message) => `${path.relative(root, result.filePath)}:${message.line} ${message.ruleId ?? message.message}`,
    ),
  );
}

/** `program` whose checker has no `method`, as an older TypeScript's has none. */
function withoutCheckerMethod(program: ts.Program, method: keyof ts.TypeChecker): ts.Program {
  const checker = new Proxy(program.getTypeChecker(), {
    get: (target, key, receiver) => (key === method ? undefined : (Reflect.get(target, key, receiver) as unknown)),
  });
  return new Proxy(program, {
    get: (target, key, receiver) =>
      key === 'getTypeChecker' ? () => checker : (Reflect.get(target, key, receiver) as unknown),
  });
}

// Building the type-checked program takes seconds on a busy two-core machine.
describe('type-aware rules where the parser or TypeScript lacks an API', { timeout: 60_000 }, () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('the current parser: the type-aware findings, to compare with', async () => {
    expect(await lint(tsParser as Linter.Parser)).toEqual(TYPE_AWARE);
  });

  it('services without getTypeAtLocation (typescript-eslint 5): the type-aware findings, from the checker and the node map', async () => {
    const parser = parserWith((services) => {
      const older: Partial<ParserServicesWithTypeInformation> = { ...(services as ParserServicesWithTypeInformation) };
      delete older.getTypeAtLocation;
      return older as ParserServices;
    });
    expect(await lint(parser)).toEqual(TYPE_AWARE);
  });

  it('a checker without isTypeAssignableTo (TypeScript before 3.7): syntactic findings, and one warning naming it', async () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const parser = parserWith((services) =>
      services.program === null
        ? services
        : { ...services, program: withoutCheckerMethod(services.program, 'isTypeAssignableTo') },
    );
    expect(await lint(parser)).toEqual(SYNTACTIC);
    expect(await lint(parser)).toEqual(SYNTACTIC);
    expect(stderr.mock.calls.map(([text]) => String(text))).toEqual([
      'eslint-plugin-checkpoint-fencing: the TypeScript or parser of this lint has no checker.isTypeAssignableTo() ' +
        '(TypeScript 3.7 and later have it), so the rules set to useTypeInformation lint syntactically. Install a ' +
        "TypeScript and a typescript-eslint parser in the ranges of the plugin's peerDependencies (its README lists " +
        'them).\n',
    ]);
  });
});

describe('a syntax tree as older parsers build it', () => {
  it('a Program whose range starts at its first token (espree before 11, typescript-eslint 8.0): a JSDoc @implements above the first statement counts', () => {
    const code = `/** @import { CheckpointStorage } from 'checkpoint-fencing' */

/** @implements {CheckpointStorage} */
export class JobCheckpoints {
  async read(id) { return id; }
  async save(id, checkpoint) { return checkpoint; }
  async delete(id) {}
}
`;
    const lintWith = (parser: Linter.Parser): string[] =>
      new Linter()
        .verify(code, [{ files: ['**/*.js'], languageOptions: { parser } }, plugin.configs.recommended], 'jobs.js')
        .map((message) => `${message.line}:${message.column} ${message.ruleId ?? message.message}`);
    const firstTokenProgram: Linter.Parser = {
      meta: { name: 'program-from-first-token' },
      parseForESLint(text: string, options: tsParser.ParserOptions) {
        const result = tsParser.parseForESLint(text, options);
        const [first] = result.ast.body;
        result.ast.range = [first?.range[0] ?? 0, result.ast.range[1]];
        return result;
      },
    } as Linter.Parser;
    const reported = lintWith(tsParser);
    expect(reported).toEqual([
      '4:14 checkpoint-fencing/no-ignored-write-condition',
      '6:9 checkpoint-fencing/no-ignored-write-condition',
    ]);
    expect(lintWith(firstTokenProgram)).toEqual(reported);
  });
});
