import { expect, test } from 'vitest'
import { main } from './core-budget.js'

test('the budget demo keeps the identity, shortens AGENTS.md and says what it left out', () => {
  const lines: string[] = []
  const result = main((line) => lines.push(line))
  expect(result.tokens).toBeLessThanOrEqual(120)
  expect(
    result.prompt.startsWith(
      'You are a careful coding agent.\n\nRun the tests before you commit.\n\n',
    ),
  ).toBe(true)
  expect(result.notice).toContain('Left out (1, ~')
  expect(result.notice).toContain('old-notes')
  expect(result.notice).toContain('Shortened (1, ~')
  expect(lines[0]).toBe('model: claude-haiku-4-5 (prefill supported)')
})
