import { defineProject } from 'vitest/config'

export default defineProject({
  test: {
    name: 'core',
    include: ['src/**/*.test.ts'],
    setupFiles: ['../../test-utils/fc-seed.ts'],
    // the property tests (500–2,000 runs each) are CPU-bound: 2–3.5 s at load average ~20 on the
    // 2 cores, over the default 5 s in a full run on Node 22 at that load
    testTimeout: 30_000,
    benchmark: { include: ['bench/**/*.bench.ts'] },
  },
})
