import {
  CheckpointWriteConditionNotFulfilledError,
  FencedCheckpointWriter,
  InMemoryCheckpointStorage,
} from '../runtime/index.js';

// Two writers share one storage. The first held the lease with token 7 and paused; the lease moved to the second
// with token 8, which checkpointed further. When the first wakes up, its write is refused.
const storage = new InMemoryCheckpointStorage();
const newOwner = new FencedCheckpointWriter(storage, { fencingToken: () => 8n });
const zombie = new FencedCheckpointWriter(storage, { fencingToken: () => 7n });

await newOwner.save('orders', 'offset-120');
console.log(`new owner (token 8) saved offset-120; stored version ${await storage.writeVersion('orders')}`);

try {
  await zombie.save('orders', 'offset-100');
  console.log('zombie write accepted: the checkpoint moved backward');
  process.exitCode = 1;
} catch (error) {
  if (!(error instanceof CheckpointWriteConditionNotFulfilledError)) {
    throw error;
  }
  console.log(`zombie (token 7) refused: ${error.message}`);
}
console.log(`stored checkpoint is still ${await storage.read('orders')}`);
