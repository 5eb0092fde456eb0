import type Anthropic from '@anthropic-ai/sdk'
import { AGENT_TRACE_STAGES } from '@contextkit/agent-loop'
import type { AnthropicStreamParams } from '@contextkit/agent-loop/anthropic'
import { CORE_TRACE_STAGES, type Message, type TraceEvent } from '@contextkit/core'
import { PREFILL_TRACE_STAGES } from '@contextkit/prefill'
import { RESUMPTION_TRACE_STAGES } from '@contextkit/resumption'
import { MIDDLEWARE_STAGES, stepOf, TURN_STEPS } from './turn-steps.js'

/** Shorten `text` to `max` characters on one line (line breaks shown as ⏎). */
export function abbreviate(text: string, max = 100): string {
  // resumption wraps what it injects in invisible markers (U+2063/U+2064): not worth printing
  const flat = text.replace(/[\u2063\u2064]/g, '').replaceAll('\n', '⏎')
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}… (${text.length} chars)`
}

function num(value: unknown): string {
  return typeof value === 'number' ? value.toLocaleString('en-US') : String(value)
}

function list(value: unknown): string {
  return Array.isArray(value) && value.length > 0 ? value.join(', ') : 'none'
}

function field(data: Record<string, unknown>, key: string): Record<string, unknown> {
  const value = data[key]
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {}
}

function summary(event: TraceEvent): string {
  const d = event.data
  switch (event.stage) {
    case AGENT_TRACE_STAGES.sessionLoaded:
      return `${d.messages} message(s) of history`
    case MIDDLEWARE_STAGES.preload: {
      const boot = field(d, 'bootstrap')
      return `loaded ${list(boot.loaded)}; preloaded files: ${list(field(d, 'files').loaded)}`
    }
    case RESUMPTION_TRACE_STAGES.injected:
      return `resumption block injected after the stable sections (${d.tokens} tokens)`
    case RESUMPTION_TRACE_STAGES.captured:
      return `resumption tail saved (${d.tokens} tokens, revision ${d.revision})`
    case RESUMPTION_TRACE_STAGES.skipped:
    case RESUMPTION_TRACE_STAGES.captureSkipped:
      return `${event.stage}${d.tailDropped ? ` (${d.tailDropped})` : ''}${d.reason ? ` (${d.reason})` : ''}`
    case MIDDLEWARE_STAGES.contextMetadata:
      return `context file hint: ${d.format}, ${d.lines} lines, ${d.recordCount} records`
    case AGENT_TRACE_STAGES.budget:
      return `${num(d.tokens)} of ${num(d.budget)} tokens; ${Array.isArray(d.omissions) && d.omissions.length > 0 ? `${d.omissions.length} omission(s), notice appended` : 'nothing left out'}`
    case PREFILL_TRACE_STAGES.injected:
      return `${d.mode}${d.reason ? ` (${d.reason})` : ''}: "${d.prefill}"`
    case PREFILL_TRACE_STAGES.skipped:
      return `skipped (${d.reason})`
    case AGENT_TRACE_STAGES.request:
      return `${d.formatter}, messages ${list(d.roles)}, ends with ${d.endsWith}${d.prefilled ? ' (prefilled)' : ''}`
    case AGENT_TRACE_STAGES.recovered:
      return `retried with the turn from ${d.by}`
    case PREFILL_TRACE_STAGES.fallback:
      return `provider rejected the prefill; fallback: ${d.mode}`
    case AGENT_TRACE_STAGES.reply:
      return `${list(d.blocks)}, stop ${d.stopReason}`
    case AGENT_TRACE_STAGES.tool:
      return `${d.tool} ${JSON.stringify(d.input)} → ${d.isError ? 'error' : `${d.chars} chars`}`
    case AGENT_TRACE_STAGES.loopGuard:
      return `${d.tool} repeated ${d.repeats} times: ${d.action}`
    case PREFILL_TRACE_STAGES.stripped:
      return `prefill stripped from a reply (match: ${d.match})`
    case PREFILL_TRACE_STAGES.kept:
      return 'prefill kept in the reply'
    case AGENT_TRACE_STAGES.finalized:
      return `reply finalized${d.final ? ' (the final one)' : ''}`
    case AGENT_TRACE_STAGES.saved:
      return `appended ${list(d.roles)}`
    default:
      return JSON.stringify(d)
  }
}

/** The model call (`step`) a trace event names, if it names one. */
function stepNumber(event: TraceEvent): number | undefined {
  const step = event.data.step
  return typeof step === 'number' ? step : undefined
}

/** One line of the step list: the turn-table step, its name, and what happened. */
function stepLine(step: number, event: TraceEvent): string {
  const name = (TURN_STEPS[step] ?? '').padEnd(34, '.')
  return `${String(step).padStart(3)}  ${name} ${summary(event)}`
}

/**
 * The step list of a turn, from its trace: the events before the first model call, then one
 * group per model call (an event with `step: N` opens call N's group, and the events without a
 * step that follow it belong to it), each group in turn-table order (ties keep the trace's
 * order). Warnings are shown where they happened.
 */
export function describeTrace(events: readonly TraceEvent[]): string[] {
  const groups: { call: number | undefined; items: { step: number; line: string }[] }[] = [
    { call: undefined, items: [] },
  ]
  for (const event of events) {
    const call = stepNumber(event)
    if (call !== undefined && call !== groups.at(-1)!.call) groups.push({ call, items: [] })
    const group = groups.at(-1)!
    if (event.stage === CORE_TRACE_STAGES.warning) {
      const at = group.items.at(-1)?.step ?? 0
      group.items.push({
        step: at,
        line: `  !  warning from ${event.data.source}: ${event.data.message}`,
      })
      continue
    }
    const step = stepOf(event)
    if (step !== undefined) group.items.push({ step, line: stepLine(step, event) })
  }
  const lines: string[] = []
  for (const { call, items } of groups) {
    if (items.length === 0) continue
    lines.push(call === undefined ? '  before the first model call' : `  model call ${call}`)
    const ordered = items.map((item, i) => ({ ...item, i }))
    ordered.sort((x, y) => x.step - y.step || x.i - y.i)
    for (const item of ordered) lines.push(item.line)
  }
  return lines
}

function blockText(block: Anthropic.Messages.ContentBlockParam): string {
  if (block.type === 'text') return block.text
  if (block.type === 'tool_use') return `[tool_use ${block.name} ${JSON.stringify(block.input)}]`
  if (block.type === 'tool_result') return `[tool_result for ${block.tool_use_id}]`
  return `[${block.type}]`
}

/** The request as sent, abbreviated: system blocks, then each message's blocks. */
export function describeRequest(params: AnthropicStreamParams, max = 110): string[] {
  const lines: string[] = []
  const system = typeof params.system === 'string' ? [{ text: params.system }] : params.system
  ;(system ?? []).forEach((b, i) => {
    const cached = 'cache_control' in b && b.cache_control ? ' (cached prefix)' : ''
    lines.push(`  system[${i}]${cached}: ${abbreviate(b.text, max)}`)
  })
  for (const m of params.messages) {
    const blocks: Anthropic.Messages.ContentBlockParam[] =
      typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content
    for (const b of blocks) lines.push(`  ${m.role}: ${abbreviate(blockText(b), max)}`)
  }
  if (params.stop_sequences)
    lines.push(`  stop_sequences: ${JSON.stringify(params.stop_sequences)}`)
  if (params.tools) lines.push(`  tools: ${params.tools.length}`)
  return lines
}

/** Saved messages, one line per block. */
export function describeHistory(messages: readonly Message[], max = 110): string[] {
  const lines: string[] = []
  for (const m of messages) {
    for (const b of m.content) {
      const text =
        b.type === 'text'
          ? b.text
          : b.type === 'tool_call'
            ? `[tool_call ${b.name} ${JSON.stringify(b.input)}]`
            : b.type === 'tool_result'
              ? `[tool_result ${b.isError ? 'error' : 'ok'}: ${b.content.map((c) => (c.type === 'text' ? c.text : '[image]')).join('')}]`
              : `[${b.type}]`
      lines.push(`  ${m.role}: ${abbreviate(text, max)}`)
    }
  }
  return lines
}
