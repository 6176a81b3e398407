import type { TSESLint } from '@typescript-eslint/utils';
import { describe, expect, it } from 'vitest';
import { mayNameFencingTokens } from '../../eslint-plugin/analysis/gates/index.js';
import { DEFAULT_TOKEN_PATTERN } from '../../vocabulary/index.js';

// The token rules skip a file whose text cannot name a fencing token (ADR 0308); these cases pin what "cannot" means.

const sourceCode = (text: string): Readonly<TSESLint.SourceCode> => ({ text }) as Readonly<TSESLint.SourceCode>;

describe('mayNameFencingTokens', () => {
  it('under the default tokenPattern, looks for "fencing" in any case anywhere in the text', () => {
    expect(mayNameFencingTokens(sourceCode('await store.save(id, json);'), DEFAULT_TOKEN_PATTERN)).toBe(false);
    for (const text of [
      'const fencing_token = 1n;',
      'const t = lease.fencingToken(id);',
      'let t: FencingToken;',
      'function f(next: FencingTokenSource) {}',
      '// FENCING',
    ]) {
      expect(mayNameFencingTokens(sourceCode(text), DEFAULT_TOKEN_PATTERN)).toBe(true);
    }
  });

  it('under a custom tokenPattern, analyses every file: a pattern says nothing about the text', () => {
    expect(mayNameFencingTokens(sourceCode('storage.save(id, cp);'), '^leaseEpoch$')).toBe(true);
  });
});
