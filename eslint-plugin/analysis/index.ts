// The syntax and scope helpers, shared answers and type information that the gates, the recognisers and the rules
// all build on; nothing here recognises a storage, a token or a store.
export * from './descendant-nodes.js';
export * from './scope-variables.js';
export * from './static-member-name.js';
export * from './type-information.js';
