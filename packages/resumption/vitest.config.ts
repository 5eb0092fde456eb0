import { defineProject } from 'vitest/config'

export default defineProject({
  test: {
    name: 'resumption',
    include: ['src/**/*.test.ts'],
    setupFiles: ['../../test-utils/fc-seed.ts'],
    benchmark: { include: ['bench/**/*.bench.ts'] },
  },
})
