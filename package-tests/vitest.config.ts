import { defineProject } from 'vitest/config'

export default defineProject({
  test: {
    name: 'package-tests',
    include: ['src/**/*.test.ts'],
    setupFiles: ['../test-utils/fc-seed.ts'],
    globalSetup: ['src/packs-setup.ts'],
  },
})
