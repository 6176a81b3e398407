// What the rules look for in users' code: storages (declared, typed, at a call's receiver), fencing tokens,
// dual-anchor stores and the calls they make, and checkpoint writes. Recognisers may ask a gate first, never the
// other way round.
export * from './checkpoint-fencing-imports.js';
export * from './checkpoint-save-calls.js';
export * from './checkpoint-storage-receivers.js';
export * from './contract-implementations.js';
export * from './dual-anchor-stores.js';
export * from './fencing-token-bindings.js';
export * from './storage-declarations.js';
export * from './storage-types.js';
export * from './store-calls.js';
