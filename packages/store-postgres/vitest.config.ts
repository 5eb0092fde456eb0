import { POSTGRES_GLOBAL_SETUP, testProject } from '../../test-utils/vitest-project.js'

export default testProject('store-postgres', {
  // one real PostgreSQL server per run (CONTEXTKIT_TEST_POSTGRES_URL, or started here), beside PGlite
  globalSetup: [POSTGRES_GLOBAL_SETUP],
  // every test file runs a real Postgres engine (PGlite, WebAssembly): engine start-ups need room
  // on a loaded 2-core machine
  hookTimeout: 60_000,
})
