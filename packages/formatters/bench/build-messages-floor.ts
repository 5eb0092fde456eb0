/**
 * `AnthropicXmlFormatter.buildMessages` beside a floor, in one process. The peer the goal
 * names (membrane) is not on the npm registry this project installs from, so the comparison is
 * with the least work that gives the same prompt: a plain string concatenation written for
 * this conversation's shapes only (no validation, no options, no cache-marker rules beyond
 * this input). The floor's text is checked equal to ours before anything is timed. Run from
 * the package:
 *
 *   node --import tsx bench/build-messages-floor.ts [reps=9]
 *
 * Prints, per size, the median time per call of `reps` runs of each (a run: as many calls as fit
 * in ~150 ms; ours and the floor alternate) and the median, least and greatest of the `reps`
 * ratios ours / floor.
 */
import type { ContentBlock, Message } from '@contextkit/core'
import { conversation, tools } from './conversation.js'

// the built dist/ is what is timed; it is imported by URL so that typechecking a clean checkout
// (before any build) does not need it — its types are the source's
const dist = new URL('../dist/index.js', import.meta.url).href
const { AnthropicXmlFormatter } = (await import(dist)) as typeof import('../src/index.js')

const reps = Number(process.argv[2] ?? 9)
const ours = new AnthropicXmlFormatter()
const system = 'Be brief.'

function escapeXml(s: string): string {
  return s.replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'))
}

function toolsText(): string {
  let s =
    'You can call the functions below. To call them, write a <function_calls> block containing one <invoke name="..."> per call, with one <parameter name="...">value</parameter> per argument, then stop; the results come back in a <function_results> block.\n\n<functions>'
  for (const t of tools) {
    s += `\n<function>\n<name>${t.name}</name>\n<description>${t.description}</description>\n<parameters>${JSON.stringify(t.inputSchema)}</parameters>\n</function>`
  }
  return `${s}\n</functions>`
}

function block(b: ContentBlock): string {
  switch (b.type) {
    case 'text':
      return escapeXml(b.text)
    case 'thinking':
      return `<thinking>${escapeXml(b.thinking)}</thinking>`
    case 'tool_call': {
      let s = `<function_calls>\n<invoke name="${b.name}">`
      for (const [k, v] of Object.entries(b.input as Record<string, unknown>)) {
        s += `\n<parameter name="${k}">${typeof v === 'string' ? escapeXml(v) : JSON.stringify(v)}</parameter>`
      }
      return `${s}\n</invoke>\n</function_calls>`
    }
    case 'tool_result': {
      const text = b.content.map((c) => (c.type === 'text' ? escapeXml(c.text) : '')).join('')
      return `<function_results>\n<result tool_call_id="${b.toolCallId}">\n${text}\n</result>\n</function_results>`
    }
    default:
      return ''
  }
}

/** The transcript and the system text by concatenation. */
function floor(messages: Message[]): { transcript: string; system: string } {
  let s = ''
  for (const m of messages) {
    const parts = m.content.map(block).join('\n')
    if (m.content[0]?.type === 'tool_result') s += `\n${parts}`
    else s += `${s === '' ? '' : '\n\n'}${m.role === 'user' ? 'User' : 'Assistant'}: ${parts}`
  }
  return { transcript: s, system: `${system}\n\n${toolsText()}` }
}

/** Our output reduced to the same two strings. */
function oursText(messages: Message[]): { transcript: string; system: string } {
  const r = ours.buildMessages(messages, { system, tools })
  const text = (content: unknown): string =>
    Array.isArray(content)
      ? content.map((c: { text?: string }) => c.text ?? '').join('')
      : String(content)
  const transcript = r.messages
    .slice(1)
    .map((m) => text(m.content))
    .join('')
  return { transcript, system: text(r.system) }
}

/** Time per call (ms) of one run: as many calls as fit in ~`ms` milliseconds. */
function run(fn: () => unknown, ms: number): number {
  let calls = 0
  const t0 = performance.now()
  let t = t0
  while (t - t0 < ms) {
    for (let i = 0; i < 10; i++) fn()
    calls += 10
    t = performance.now()
  }
  return (t - t0) / calls
}

const median = (xs: readonly number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0

for (const n of [10, 1000]) {
  const messages = conversation(n)
  const a = oursText(messages)
  const b = floor(messages)
  if (a.transcript !== b.transcript || a.system !== b.system) {
    throw new Error(`the floor does not give our prompt at ${n} messages`)
  }
  const callOurs = () => ours.buildMessages(messages, { system, tools })
  const callFloor = () => floor(messages)
  run(callOurs, 200)
  run(callFloor, 200)
  // runs alternate (ours, floor, ours, …) so both see the same load of a shared machine; each
  // pair gives one ratio
  const tOurs: number[] = []
  const tFloor: number[] = []
  const ratios: number[] = []
  for (let r = 0; r < reps; r++) {
    const x = run(callOurs, 150)
    const y = run(callFloor, 150)
    tOurs.push(x)
    tFloor.push(y)
    ratios.push(x / y)
  }
  console.log(
    `buildMessages, ${String(n).padStart(4)} messages: AnthropicXmlFormatter ${median(tOurs).toFixed(4)} ms, ` +
      `string-concat floor ${median(tFloor).toFixed(4)} ms, ours / floor median ${median(ratios).toFixed(2)}× ` +
      `(min ${Math.min(...ratios).toFixed(2)}×, max ${Math.max(...ratios).toFixed(2)}× over ${reps} pairs)`,
  )
}
