import { defineProject } from 'vitest/config'

export default defineProject({
  test: {
    name: 'examples',
    // slow only under load (CI's 2 cores with a busy loop beside): the default 5 s is an idle machine's
    testTimeout: 30_000,
    include: ['src/**/*.test.ts'],
    setupFiles: ['../test-utils/fc-seed.ts'],
    // the workers demo and the live inspector run on a real PostgreSQL server
    // (CONTEXTKIT_TEST_POSTGRES_URL, or one started here; without one those tests are skipped)
    globalSetup: ['../test-utils/postgres-global-setup.ts'],
    benchmark: { include: ['bench/**/*.bench.ts'] },
  },
})
