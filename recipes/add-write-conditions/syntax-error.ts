import type { ts as Typescript } from 'ts-morph';
import { ts } from './typescript.js';
import { upgradeMessages } from './upgrade-messages.js';

/** The error for a file that does not parse: where (1-based line and column) and the parser's reason. */
export function syntaxError(sourceFile: Typescript.SourceFile, problem: Typescript.Diagnostic): Error {
  const { line, character } = sourceFile.getLineAndCharacterOfPosition(problem.start ?? 0);
  return new Error(
    upgradeMessages.doesNotParse(
      sourceFile.fileName,
      line + 1,
      character + 1,
      ts.flattenDiagnosticMessageText(problem.messageText, ' '),
    ),
  );
}
