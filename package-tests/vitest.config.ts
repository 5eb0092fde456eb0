import { testProject } from '../test-utils/vitest-project.js'

// the packed tarballs, made once per run and shared by every file (src/packs.ts)
export default testProject('package-tests', { globalSetup: ['src/packs-setup.ts'] })
