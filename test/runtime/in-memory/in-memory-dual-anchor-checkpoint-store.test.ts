import { InMemoryDualAnchorCheckpointStore } from '../../../runtime/index.js';
import { describeDualAnchorCheckpointStoreConformance } from '../../../runtime/testing/index.js';

describeDualAnchorCheckpointStoreConformance(
  'InMemoryDualAnchorCheckpointStore',
  () => new InMemoryDualAnchorCheckpointStore(),
);
