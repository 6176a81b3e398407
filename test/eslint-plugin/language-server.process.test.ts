import { cpSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upgrade } from '../../recipes/index.js';
import { builtPackage } from '../support/built-package.js';
import { LanguageServerClient } from '../support/language-server-client.js';
import { temporaryDirectory } from '../support/temporary-directory.js';

// The plugin in an editor: the ESLint language server VS Code runs (vscode-langservers-extracted, pinned in the root
// package.json, installed with it and never downloading anything) lints a project with `recommended-type-checked`
// over stdio LSP. The test checks the diagnostics, the code actions each offers and the text each applies, and prints
// how long the first diagnostics and each re-lint after an edit took (the plugin README's Cost section quotes them).

const REPO = join(import.meta.dirname, '../..');
const SERVER = join(REPO, 'node_modules/vscode-langservers-extracted/bin/vscode-eslint-language-server');
const FIXTURE = join(REPO, 'fixtures/editor-project');

interface Position {
  readonly line: number;
  readonly character: number;
}
interface Range {
  readonly start: Position;
  readonly end: Position;
}
interface Diagnostic {
  readonly range: Range;
  readonly code?: string | number;
  readonly message: string;
}
interface TextEdit {
  readonly range: Range;
  readonly newText: string;
}
interface Command {
  readonly command: string;
  readonly arguments?: unknown[];
}
interface CodeAction {
  readonly title: string;
  readonly command?: Command;
}
interface WorkspaceEdit {
  readonly changes?: Record<string, TextEdit[]>;
  readonly documentChanges?: { readonly edits: TextEdit[] }[];
}

/** A copy of the fixture project with the packages it uses installed: the plugin and runtime as built now. */
function editorProject(): string {
  const root = temporaryDirectory('editor-project');
  cpSync(FIXTURE, root, { recursive: true });
  mkdirSync(join(root, 'node_modules/@typescript-eslint'), { recursive: true });
  symlinkSync(builtPackage('runtime'), join(root, 'node_modules/checkpoint-fencing'), 'dir');
  symlinkSync(builtPackage('eslint-plugin'), join(root, 'node_modules/eslint-plugin-checkpoint-fencing'), 'dir');
  for (const name of ['eslint', 'typescript', 'typescript-eslint', '@typescript-eslint/parser']) {
    symlinkSync(join(REPO, 'node_modules', name), join(root, 'node_modules', name), 'dir');
  }
  return root;
}

/**
 * The settings VS Code's ESLint extension sends by default, for a workspace folder at `root`. Without a
 * `packageManager` the server never runs one to find global packages; it loads the project's own ESLint.
 */
function settings(root: string): object {
  return {
    validate: 'on',
    run: 'onType',
    useESLintClass: false,
    experimental: {},
    codeAction: {
      disableRuleComment: { enable: true, location: 'separateLine', commentStyle: 'line' },
      showDocumentation: { enable: true },
    },
    codeActionOnSave: { enable: false, mode: 'all' },
    format: false,
    quiet: false,
    onIgnoredFiles: 'off',
    options: {},
    rulesCustomizations: [],
    problems: { shortenToSingleLine: false },
    nodePath: null,
    workingDirectory: { mode: 'location' },
    workspaceFolder: { uri: pathToFileURL(root).href, name: 'editor-project' },
  };
}

/** `text` with `edits` (LSP ranges in lines and UTF-16 characters) applied, last first. */
function applyEdits(text: string, edits: readonly TextEdit[]): string {
  const lineStarts = [0, ...[...text.matchAll(/\n/gu)].map((match) => match.index + 1)];
  const offset = ({ line, character }: Position) => (lineStarts[line] ?? text.length) + character;
  return [...edits]
    .sort((a, b) => offset(b.range.start) - offset(a.range.start))
    .reduce(
      (result, edit) => result.slice(0, offset(edit.range.start)) + edit.newText + result.slice(offset(edit.range.end)),
      text,
    );
}

function editsOf(edit: WorkspaceEdit | undefined, uri: string): TextEdit[] {
  return edit?.documentChanges?.flatMap((change) => change.edits) ?? edit?.changes?.[uri] ?? [];
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
}

describe('the ESLint language server with recommended-type-checked', { timeout: 300_000 }, () => {
  let root: string;
  let client: LanguageServerClient;
  const versions = new Map<string, number>();
  // From opening a file to its diagnostics (the first file pays for loading ESLint, the plugin and the TypeScript
  // program), and from each change to the new diagnostics.
  const timings = { open: [] as number[], afterEdit: [] as number[] };
  // What the server last asked the client to apply (`workspace/applyEdit`), as a command's edit is sent.
  let applied: WorkspaceEdit | undefined;

  beforeAll(async () => {
    root = editorProject();
    client = new LanguageServerClient(process.execPath, [SERVER, '--stdio'], root, (method, params) => {
      if (method === 'workspace/applyEdit') {
        applied = (params as { edit: WorkspaceEdit }).edit;
        return { applied: true };
      }
      return method === 'workspace/configuration' ? [settings(root)] : null;
    });
    await client.request('initialize', {
      processId: process.pid,
      rootUri: pathToFileURL(root).href,
      workspaceFolders: [{ uri: pathToFileURL(root).href, name: 'editor-project' }],
      capabilities: {
        workspace: {
          configuration: true,
          workspaceFolders: true,
          applyEdit: true,
          diagnostics: { refreshSupport: true },
        },
        textDocument: {
          diagnostic: { dynamicRegistration: false },
          codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ['quickfix'] } } },
        },
      },
    });
    client.notify('initialized', {});
  }, 300_000);

  afterAll(async () => {
    await client.close();
    const [first, ...others] = timings.open;
    const edits = timings.afterEdit;
    console.log(
      `ESLint language server, recommended-type-checked: first diagnostics ${String(first)} ms after opening the ` +
        `first file, ${others.join(', ')} ms for the next; after an edit median ${median(edits)} ms ` +
        `(${Math.min(...edits)}–${Math.max(...edits)}, ${edits.length} edits)`,
    );
  });

  /** The document's diagnostics, pulled as VS Code pulls them after each open and change (LSP 3.17). */
  async function diagnosticsOf(uri: string): Promise<Diagnostic[]> {
    const report = await client.request<{ items: Diagnostic[] }>('textDocument/diagnostic', { textDocument: { uri } });
    return report.items;
  }

  /** Opens `file` (relative to the project) and returns its text and its first diagnostics, timed from the open. */
  async function open(file: string): Promise<{ uri: string; text: string; diagnostics: Diagnostic[] }> {
    const uri = pathToFileURL(join(root, file)).href;
    const text = readFileSync(join(root, file), 'utf8');
    const started = performance.now();
    versions.set(uri, 1);
    client.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'typescript', version: 1, text } });
    const diagnostics = await diagnosticsOf(uri);
    timings.open.push(Math.round(performance.now() - started));
    return { uri, text, diagnostics };
  }

  /** Replaces the document's text and returns its diagnostics, timed from the change. */
  async function change(uri: string, text: string): Promise<Diagnostic[]> {
    const version = (versions.get(uri) ?? 1) + 1;
    versions.set(uri, version);
    const started = performance.now();
    client.notify('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [{ text }] });
    const diagnostics = await diagnosticsOf(uri);
    timings.afterEdit.push(Math.round(performance.now() - started));
    return diagnostics;
  }

  function codeActions(uri: string, diagnostic: Diagnostic): Promise<CodeAction[]> {
    return client.request<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri },
      range: diagnostic.range,
      context: { diagnostics: [diagnostic] },
    });
  }

  /** Runs the action's command, as the editor does when it is picked, and returns the edit the server then sends. */
  async function editOf(action: CodeAction | undefined, uri: string): Promise<TextEdit[]> {
    applied = undefined;
    await client.request('workspace/executeCommand', action?.command);
    return editsOf(applied, uri);
  }

  it('no-ignored-write-condition: both reports, each offering the codemod’s edit, which clears them', async () => {
    const { uri, text, diagnostics } = await open('src/map-checkpoint-storage.ts');
    expect(
      diagnostics.map(({ code, range }) => ({ code, line: range.start.line, character: range.start.character })),
    ).toEqual([
      { code: 'checkpoint-fencing/no-ignored-write-condition', line: 3, character: 13 },
      { code: 'checkpoint-fencing/no-ignored-write-condition', line: 10, character: 8 },
    ]);
    const codemodCopy = temporaryDirectory('editor-project-codemod');
    cpSync(root, codemodCopy, { recursive: true, verbatimSymlinks: true });
    await upgrade({ cwd: codemodCopy, paths: ['src/map-checkpoint-storage.ts'] });
    const codemodText = readFileSync(join(codemodCopy, 'src/map-checkpoint-storage.ts'), 'utf8');
    for (const diagnostic of diagnostics) {
      const actions = await codeActions(uri, diagnostic);
      expect(actions.map(({ title }) => title)).toEqual([
        'Make the edit `npx checkpoint-fencing-codemod upgrade` makes here: keep save() as saveUnconditionally() ' +
          'behind a save() that refuses every condition but any(), and add a writeVersion() that reports no version, ' +
          'under a TODO to evaluate conditions atomically. (checkpoint-fencing/no-ignored-write-condition)',
        'Disable checkpoint-fencing/no-ignored-write-condition for this line',
        'Disable checkpoint-fencing/no-ignored-write-condition for the entire file',
        'Show documentation for checkpoint-fencing/no-ignored-write-condition',
      ]);
      expect(applyEdits(text, await editOf(actions[0], uri))).toBe(codemodText);
    }
    expect(await change(uri, codemodText)).toEqual([]);
  });

  it('no-unfenced-write: the stamp, with an import in the file’s own quotes and without a semicolon', async () => {
    const { uri, text, diagnostics } = await open('src/commit-projection.ts');
    expect(
      diagnostics.map(({ code, range }) => ({ code, line: range.start.line, character: range.start.character })),
    ).toEqual([{ code: 'checkpoint-fencing/no-unfenced-write', line: 4, character: 8 }]);
    const [diagnostic] = diagnostics;
    const actions = diagnostic === undefined ? [] : await codeActions(uri, diagnostic);
    expect(actions.map(({ title }) => title)).toEqual([
      'Write with CheckpointWriteCondition.notOlderThan(fencingToken). (checkpoint-fencing/no-unfenced-write)',
      'Disable checkpoint-fencing/no-unfenced-write for this line',
      'Disable checkpoint-fencing/no-unfenced-write for the entire file',
      'Show documentation for checkpoint-fencing/no-unfenced-write',
    ]);
    const stamped = applyEdits(text, await editOf(actions[0], uri));
    expect(stamped).toBe(
      text
        .replace(
          'from "checkpoint-fencing"\n',
          'from "checkpoint-fencing"\nimport { CheckpointWriteCondition } from "checkpoint-fencing"\n',
        )
        .replace('position)\n', 'position, CheckpointWriteCondition.notOlderThan(fencingToken))\n'),
    );
    expect(await change(uri, stamped)).toEqual([]);
    // Typing in the file: each keystroke is a re-lint, with types.
    for (const typed of ['// c', '// co', '// com']) {
      expect(await change(uri, `${stamped}${typed}\n`)).toEqual([]);
    }
  });
});
