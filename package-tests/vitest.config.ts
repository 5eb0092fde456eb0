import { defineProject } from 'vitest/config'

export default defineProject({
  test: {
    name: 'package-tests',
    // slow only under load (CI's 2 cores with a busy loop beside): the default 5 s is an idle machine's
    testTimeout: 30_000,
    include: ['src/**/*.test.ts'],
    setupFiles: ['../test-utils/fc-seed.ts'],
    globalSetup: ['src/packs-setup.ts'],
  },
})
