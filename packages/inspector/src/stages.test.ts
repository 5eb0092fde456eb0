import { AGENT_TRACE_STAGES, COMPOSITION_RECORD_VERSION } from '@contextkit/agent-loop'
import { expect, test } from 'vitest'
import { COMPOSITION_VERSIONS } from './composition.js'
import { LOOP_STAGES } from './stages.js'

test("the stages the inspector reads are the loop's, and it reads the loop's composition version", () => {
  const loop: Record<string, string> = AGENT_TRACE_STAGES
  for (const [name, stage] of Object.entries(LOOP_STAGES)) expect(loop[name], name).toBe(stage)
  expect(COMPOSITION_VERSIONS).toContain(COMPOSITION_RECORD_VERSION)
})
