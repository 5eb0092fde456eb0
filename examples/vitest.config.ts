import { POSTGRES_GLOBAL_SETUP, testProject } from '../test-utils/vitest-project.js'

export default testProject('examples', {
  // the workers demo and the live inspector run on a real PostgreSQL server
  // (CONTEXTKIT_TEST_POSTGRES_URL, or one started here; without one those tests are skipped)
  globalSetup: [POSTGRES_GLOBAL_SETUP],
})
