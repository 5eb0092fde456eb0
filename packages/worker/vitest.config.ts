import { defineProject } from 'vitest/config'

export default defineProject({
  test: {
    name: 'worker',
    include: ['src/**/*.test.ts'],
    setupFiles: ['../../test-utils/fc-seed.ts'],
    // one real PostgreSQL server per run (CONTEXTKIT_TEST_POSTGRES_URL, or started here), beside PGlite
    globalSetup: ['../../test-utils/postgres-global-setup.ts'],
    benchmark: { include: ['bench/**/*.bench.ts'] },
    // Every test file runs a real Postgres engine (PGlite, WebAssembly): give the slower
    // property tests and engine start-ups room on a loaded 2-core machine.
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
})
