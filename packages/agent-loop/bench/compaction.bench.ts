// The pre-call check compaction adds to every model call: clip the tool results (memoized), then
// estimate the request with the run's counter (memoized per message) and compare with the
// threshold. Measured on a 200-message history with 20 tools, counter warm as it is from the
// second call of a run on.
import { createTokenCounter, createTurnContext, getModelInfo, textMessage } from '@contextkit/core'
import { bench, describe } from 'vitest'
import { RunTokenCounter } from '../src/budget/budget.js'
import { ToolResultClipper } from '../src/budget/tool-result-clip.js'
import { compactionDue, estimateRequest } from '../src/compaction/select-cut.js'
import { toolDefinition } from '../src/tools/define-tool.js'
import { history, tools } from './fixtures.js'

const model = getModelInfo('claude-haiku-4-5')
const counter = new RunTokenCounter(createTokenCounter({ model }))
const clip = new ToolResultClipper(Math.floor(model.contextWindow / 4), counter.asCounter())
const turn = createTurnContext({
  model,
  system: [
    { id: 'system', text: 'You are careful.', priority: 1, cache: 'stable', required: true },
  ],
  messages: [...history(200), textMessage('user', 'Which files parse orders?')],
  tools: tools(20).map(toolDefinition),
})

function check(): boolean {
  const messages = clip.messages(turn.messages)
  const estimate = estimateRequest(turn, messages, counter)
  return compactionDue(estimate.total, 0.8, model.contextWindow)
}
check()

describe('compaction pre-call check, 200-message history, 20 tools', () => {
  bench('clip + estimate + threshold (warm counter)', () => {
    if (check()) throw new Error('a 200-message history is under the threshold')
  })
})
