import { testProject } from '../../test-utils/vitest-project.js'

// the property tests (500–2,000 runs each) are CPU-bound: 2–3.5 s at load average ~20 on the
// 2 cores, within testProject's 30 s
export default testProject('core')
