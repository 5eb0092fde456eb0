import { defineProject } from 'vitest/config'

export default defineProject({
  test: {
    name: 'preload',
    include: ['src/**/*.test.ts'],
    benchmark: { include: ['bench/**/*.bench.ts'] },
  },
})
