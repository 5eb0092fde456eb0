import { defineProject } from 'vitest/config'

export default defineProject({
  test: {
    name: 'inspector',
    include: ['src/**/*.test.ts', 'e2e/**/*.test.ts'],
    setupFiles: ['../../test-utils/fc-seed.ts'],
    benchmark: { include: ['bench/**/*.bench.ts'] },
  },
})
