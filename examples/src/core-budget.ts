import {
  createTokenCounter,
  fitSections,
  getModelInfo,
  renderOmissionNotice,
  renderSections,
  type Section,
} from '@contextkit/core'

/** What the budget example produced. */
export interface BudgetDemoResult {
  prompt: string
  notice: string
  tokens: number
}

/**
 * Fit a system prompt for a model into a small budget and show what the model is told was left
 * out. `print` receives the lines a person would read.
 */
export function main(print: (line: string) => void = console.log): BudgetDemoResult {
  const model = getModelInfo('claude-haiku-4-5')
  const counter = createTokenCounter({ model })
  const sections: Section[] = [
    { id: 'identity', text: 'You are a careful coding agent.', priority: 100, cache: 'stable' },
    {
      id: 'AGENTS.md',
      text: 'Run the tests before you commit. '.repeat(60),
      priority: 50,
      cache: 'stable',
      shorter: ['Run the tests before you commit.'],
    },
    {
      id: 'old-notes',
      text: 'Yesterday we refactored the parser. '.repeat(80),
      priority: 5,
      cache: 'volatile',
    },
  ]
  const fit = fitSections(sections, 120, counter)
  const notice = renderOmissionNotice(fit.omissions)
  const prompt = renderSections([...fit.kept, { text: notice }])
  print(`model: ${model.id} (prefill ${model.supportsPrefill ? 'supported' : 'not supported'})`)
  print(`budget: 120 tokens, used ${fit.tokens}`)
  print('--- prompt ---')
  print(prompt)
  return { prompt, notice, tokens: fit.tokens }
}
