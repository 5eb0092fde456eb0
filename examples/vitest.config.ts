import { defineProject } from 'vitest/config'

export default defineProject({
  test: {
    name: 'examples',
    include: ['src/**/*.test.ts'],
    setupFiles: ['../test-utils/fc-seed.ts'],
    benchmark: { include: ['bench/**/*.bench.ts'] },
  },
})
