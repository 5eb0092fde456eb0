import { testProject } from '../../test-utils/vitest-project.js'

export default testProject('resumption')
