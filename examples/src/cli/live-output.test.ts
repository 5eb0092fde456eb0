import type { AgentEvent } from '@contextkit/agent-loop'
import { expect, test } from 'vitest'
import { LiveOutput, toolLabel } from './live-output.js'
import { createTerminal } from './terminal.js'
import { collector } from './test-support.js'

const call = {
  type: 'tool_call' as const,
  id: 't1',
  name: 'read_file',
  input: { path: 'src/a.ts' },
}
const events: AgentEvent[] = [
  { type: 'step-start', step: 1, phase: 'agent' },
  { type: 'text-delta', step: 1, text: ' Reading' },
  { type: 'text-delta', step: 1, text: ' it.' },
  { type: 'tool-call', step: 1, call },
  {
    type: 'tool-result',
    step: 1,
    name: 'read_file',
    durationMs: 12,
    result: {
      type: 'tool_result',
      toolCallId: 't1',
      content: [{ type: 'text', text: 'abc' }],
      isError: false,
    },
  },
  { type: 'step-start', step: 2, phase: 'agent' },
  { type: 'text-delta', step: 2, text: 'Done.' },
  { type: 'warning', warning: { code: 'x_off', message: 'x turned off', source: 'x' } },
]

test('streamed text with the prefill in front, a line per finished tool, warnings on their own line', () => {
  const out = collector(false)
  const live = new LiveOutput(createTerminal(out, {}), { prefill: 'Sure.' })
  for (const e of events) live.event(e)
  live.stop()
  expect(out.text()).toBe(
    'Sure. Reading it.\n  ✔ read_file src/a.ts · 12 ms · 3 chars\nDone.\n! x_off: x turned off\n',
  )
})

test('a reply label goes before the text of each reply, beside it, not before tool lines', () => {
  const out = collector(false)
  const live = new LiveOutput(createTerminal(out, {}), {
    prefill: 'Sure.',
    replyLabel: '(offline emulator)',
  })
  for (const e of events) live.event(e)
  live.stop()
  expect(out.text()).toBe(
    '(offline emulator) Sure. Reading it.\n  ✔ read_file src/a.ts · 12 ms · 3 chars\n(offline emulator) Done.\n! x_off: x turned off\n',
  )
})

test('no spinner on a terminal that reports no width (nanospinner would divide by it)', () => {
  const out = collector(true)
  out.columns = 0
  const live = new LiveOutput(createTerminal(out, {}))
  for (const e of events) live.event(e)
  live.stop()
  expect(out.text()).not.toContain('\u001b[?25l')
  expect(out.text()).toContain('✔')
})

test('tool labels name the path, or the first string input, shortened', () => {
  expect(toolLabel(call)).toBe('read_file src/a.ts')
  expect(toolLabel({ name: 'list_files', input: {} })).toBe('list_files')
  expect(toolLabel({ name: 'run_js', input: { code: `print(1)\n${'x'.repeat(60)}` } })).toBe(
    `run_js print(1) ${'x'.repeat(30)}…`,
  )
})
