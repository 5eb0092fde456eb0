import { defineProject } from 'vitest/config'

export default defineProject({
  test: {
    name: 'context-metadata',
    include: ['src/**/*.test.ts'],
    setupFiles: ['../../test-utils/fc-seed.ts'],
    // property tests run thousands of analyses: CPU-bound, so give them room on a busy 2-core runner
    testTimeout: 30_000,
    benchmark: { include: ['bench/**/*.bench.ts'] },
  },
})
