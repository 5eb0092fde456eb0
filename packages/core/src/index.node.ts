// The root of @contextkit/core as Node resolves it (the `node` export condition):
// the pure API (src/index.ts) plus the Node-only parts (src/node.ts, which
// `@contextkit/core/node` serves alone), so Node code can import either from the root.
// Browser and edge bundlers take the `default` condition (src/index.ts) and never
// reach the Node-only modules. See "Package shape" in the root README.
export * from './index.js'
export * from './node.js'
