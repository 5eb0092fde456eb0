import { defineProject } from 'vitest/config'

export default defineProject({
  test: {
    name: 'store-postgres',
    include: ['src/**/*.test.ts'],
    benchmark: { include: ['bench/**/*.bench.ts'] },
  },
})
