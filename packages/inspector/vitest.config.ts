import { testProject } from '../../test-utils/vitest-project.js'

export default testProject('inspector', { include: ['src/**/*.test.ts', 'e2e/**/*.test.ts'] })
