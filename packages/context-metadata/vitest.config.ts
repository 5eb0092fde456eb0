import { testProject } from '../../test-utils/vitest-project.js'

// property tests run thousands of analyses: CPU-bound, room for them is testProject's 30 s
export default testProject('context-metadata')
