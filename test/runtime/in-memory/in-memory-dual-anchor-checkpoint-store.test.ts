import { InMemoryDualAnchorCheckpointStore } from '../../../runtime/dual-anchor-entry.js';
import { describeDualAnchorCheckpointStoreConformance } from '../../../runtime/testing/index.js';

describeDualAnchorCheckpointStoreConformance(
  'InMemoryDualAnchorCheckpointStore',
  () => new InMemoryDualAnchorCheckpointStore(),
);
