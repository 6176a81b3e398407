// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS file under verbatimModuleSyntax imports so.
import threads = require('node:worker_threads');
import type { TransformApi, TransformFile } from './add-write-conditions/jscodeshift.js';

// jscodeshift requires the transform, by default under @babel/register, whose hook compiles every file required after
// it and fails on ts-morph's class static blocks. A worker thread has a module system the hook never reaches, so the
// recipe loads and runs there, as under `--no-babel`.

const WORKER = 'checkpoint-fencing-codemod jscodeshift worker';

interface Reply {
  readonly output?: string | undefined;
  readonly error?: { readonly name: string; readonly message: string };
  readonly reports: readonly string[];
  readonly stats: readonly (readonly [string, number | undefined])[];
}

let worker: threads.Worker | undefined;

/**
 * The add-write-conditions recipe as a jscodeshift transform, run in a worker thread: `npx jscodeshift -t
 * node_modules/checkpoint-fencing-codemod/dist/recipes/jscodeshift.cjs --extensions=ts,tsx src`. Resolves to the new
 * source, or `undefined` when the file needs nothing; reports and stats reach `api` as the recipe makes them.
 */
async function addWriteConditions(file: TransformFile, api: TransformApi): Promise<string | undefined> {
  if (worker === undefined) {
    worker = new threads.Worker(__filename, { workerData: WORKER });
    // Idle, the worker must not keep jscodeshift's process alive; a pending reply's port keeps it alive while needed.
    worker.unref();
  }
  const { port1, port2 } = new threads.MessageChannel();
  const reply = new Promise<Reply>((resolve) => port1.once('message', resolve));
  worker.postMessage({ file: { path: file.path, source: file.source }, port: port2 }, [port2]);
  const { output, error, reports, stats } = await reply;
  port1.close();
  for (const message of reports) {
    api.report?.(message);
  }
  for (const [name, quantity] of stats) {
    api.stats?.(name, quantity);
  }
  if (error !== undefined) {
    throw Object.assign(new Error(error.message), { name: error.name });
  }
  return output;
}

if (threads.workerData === WORKER) {
  threads.parentPort?.on('message', ({ file, port }: { file: TransformFile; port: threads.MessagePort }) => {
    const reports: string[] = [];
    const stats: [string, number | undefined][] = [];
    const api: TransformApi = {
      report: (message) => reports.push(message),
      stats: (name, quantity) => stats.push([name, quantity]),
    };
    void import('./add-write-conditions/jscodeshift.js')
      .then(({ default: upgrade }) => ({ output: upgrade(file, api), reports, stats }))
      .catch((error: unknown) => {
        const { name, message } = error instanceof Error ? error : new Error(String(error));
        return { error: { name, message }, reports, stats };
      })
      .then((reply: Reply) => {
        port.postMessage(reply);
        port.close();
      });
  });
}

export = addWriteConditions;
