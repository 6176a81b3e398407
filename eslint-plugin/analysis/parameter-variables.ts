import type { TSESLint, TSESTree } from '@typescript-eslint/utils';

/**
 * The variables `parameter` of `fn` declares: its name, or every name a destructuring pattern binds. A parameter
 * declares them through the function, so they are the function's variables whose name lies inside the parameter.
 */
export function parameterVariables(
  fn: TSESTree.FunctionLike,
  parameter: TSESTree.Parameter,
  sourceCode: Readonly<TSESLint.SourceCode>,
): TSESLint.Scope.Variable[] {
  const [start, end] = parameter.range;
  return sourceCode
    .getDeclaredVariables(fn)
    .filter((variable) =>
      variable.defs.some((definition) => start <= definition.name.range[0] && definition.name.range[1] <= end),
    );
}
