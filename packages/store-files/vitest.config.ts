import { defineProject } from 'vitest/config'

export default defineProject({
  test: {
    name: 'store-files',
    include: ['src/**/*.test.ts'],
    setupFiles: ['../../test-utils/fc-seed.ts'],
    benchmark: { include: ['bench/**/*.bench.ts'] },
    // the crash tests kill real writer processes and the lock tests wait on real locks: room
    // for them on a loaded 2-core machine
    testTimeout: 30_000,
  },
})
