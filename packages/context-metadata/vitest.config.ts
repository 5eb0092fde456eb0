import { defineProject } from 'vitest/config'

export default defineProject({
  test: {
    name: 'context-metadata',
    include: ['src/**/*.test.ts'],
    benchmark: { include: ['bench/**/*.bench.ts'] },
  },
})
