import { testProject } from '../../test-utils/vitest-project.js'

// the crash tests kill real writer processes and the lock tests wait on real locks: testProject's
// 30 s gives them room on a loaded 2-core machine
export default testProject('store-files')
