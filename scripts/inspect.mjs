#!/usr/bin/env node
// `pnpm inspect --workspace DIR [--store …] [--port N]`: build quietly, then serve the inspector
// over the workspace's sessions (examples/src/inspect.ts). The build step is scripts/demo.mjs's.
globalThis.contextkitProgram = { file: 'inspect.ts', label: 'inspect' }
await import('./demo.mjs')
