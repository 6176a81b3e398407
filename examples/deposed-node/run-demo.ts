// A deposed node is refused both before and after it notices it lost its lease: by the storage while it still writes
// with its old token, and by its FencedCheckpointWriter, which sends nothing, once its token source answers undefined.
// In memory, no server. Usage: npm run example:deposed-node. Exits 1 unless both of node A's late writes are refused
// and the checkpoint stays where node B put it.
import { runDeposedNodeDemo } from './deposed-node-demo.js';

const say = (line: string): void => {
  console.log(`[deposed node] ${line}`);
};
try {
  await runDeposedNodeDemo(say);
} catch (error) {
  say(`FAILED: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
