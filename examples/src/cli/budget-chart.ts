import { PLAN_SECTION_ID, summaryOf } from '@contextkit/agent-loop'
import {
  estimateRequestTokens,
  type Message,
  OMISSION_NOTICE_ID,
  type Omission,
  type Section,
  type TokenCounter,
  type TurnContext,
} from '@contextkit/core'
import { type Colors, num } from './terminal.js'

/** The rows of the chart, in the order a request is built. */
export const BUDGET_ROWS = [
  'system',
  'bootstrap',
  'resumption',
  'summary',
  'history',
  'message',
  'context-hint',
  'preloaded',
  'plan',
  'prefill',
  'tools',
] as const

/** One row of the chart. */
export type BudgetRowKey = (typeof BUDGET_ROWS)[number]

const LABELS: Readonly<Record<BudgetRowKey, string>> = {
  system: 'system',
  bootstrap: 'bootstrap files',
  resumption: 'resumption',
  summary: 'summary',
  history: 'history',
  message: 'your message',
  'context-hint': 'context-file hint',
  preloaded: 'preloaded files',
  plan: 'plan',
  prefill: 'prefill',
  tools: 'tools',
}

/** One bar. */
export interface BudgetRow {
  key: BudgetRowKey
  label: string
  tokens: number
  /** What is in it, or why it is empty. */
  detail: string
}

/** Something left out of the first request, and why. */
export interface BudgetOmission {
  what: string
  why: string
  tokensSaved: number
}

/** What the first model call of a run is made of, against its budget. */
export interface BudgetChart {
  model: string
  contextWindow: number
  /** `max_tokens` of the reply. */
  maxTokens: number
  /** Token budget for system and user sections (after messages, tools and the reply). */
  budget: number
  /** What the kept sections cost. */
  sectionTokens: number
  /** How the budget came about, e.g. `200,000 window − 1,024 reply − 9 messages − 230 tools`. */
  budgetFormula: string
  rows: BudgetRow[]
  omitted: BudgetOmission[]
}

/** The `agent:budget` trace event of one call. */
export interface BudgetEvent {
  budget: number
  tokens: number
  kept: string[]
  omissions: Omission[]
}

/** What {@link buildBudgetChart} reads: the prepared turn plus trace events of the run. */
export interface BudgetChartInput {
  turn: TurnContext
  event: BudgetEvent
  maxTokens: number
  counter: TokenCounter
  /** `agent:session-loaded`: messages stored and kept. */
  session?: { messages: number; kept: number } | undefined
  /** The `preload` event. */
  preload?: Record<string, unknown> | undefined
  /** The prefill event: injected (`prefill`, `mode`) or skipped (`reason`). */
  prefill?: Record<string, unknown> | undefined
  /** The resumption `inject`/`skip` event. */
  resumption?: Record<string, unknown> | undefined
}

type Kind = BudgetRowKey | 'notice' | 'other'

function kindOf(section: Section, side: 'system' | 'user'): Kind {
  const id = section.id
  if (id === OMISSION_NOTICE_ID) return 'notice'
  if (id.startsWith('bootstrap:')) return 'bootstrap'
  if (id === 'resumption') return 'resumption'
  if (id === 'context-metadata') return 'context-hint'
  if (id.startsWith('preload:')) return 'preloaded'
  if (id === PLAN_SECTION_ID) return 'plan'
  return side === 'system' ? 'system' : 'other'
}

/**
 * The row of the request's last message: the user's words when it is one, else what a resumed
 * run ends on (the results of tool calls after an approval, or the reply that paused).
 */
export function lastMessageRow(
  last: Message | undefined,
  label: string,
): { label: string; detail: string } {
  if (last === undefined) return { label, detail: 'none' }
  const results = last.content.filter((b) => b.type === 'tool_result').length
  const calls = last.content.flatMap((b) => (b.type === 'tool_call' ? [b.name] : []))
  const said = last.content
    .map((b) => (b.type === 'text' ? b.text : ''))
    .join('')
    .replace(/\s+/g, ' ')
    .trim()
  if (last.role === 'user' && results > 0) {
    const plural = results === 1 ? 'call' : 'calls'
    return {
      label: 'last message',
      detail: `the results of ${results} tool ${plural} (a resumed run)`,
    }
  }
  if (last.role === 'assistant') {
    const what = calls.length > 0 ? `the paused reply, calling ${calls.join(', ')}` : 'the reply'
    return { label: 'last message', detail: what }
  }
  return { label, detail: said.length > 48 ? `"${said.slice(0, 47)}…"` : `"${said}"` }
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {}
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []
}

function skippedOf(preload: Record<string, unknown> | undefined): Map<string, string> {
  const out = new Map<string, string>()
  for (const s of Array.isArray(record(preload?.files).skipped)
    ? (record(preload?.files).skipped as unknown[])
    : []) {
    const { path, reason } = record(s)
    if (typeof path === 'string') out.set(path, String(reason))
  }
  return out
}

const PRELOAD_WHY: Readonly<Record<string, string>> = {
  over_budget: "over preload's 5,000-token budget for files",
  file_too_large: 'over 200 lines or 64 KB',
}

function detailFor(
  key: BudgetRowKey,
  ids: string[],
  input: BudgetChartInput,
  dropped: string[] = [],
): string {
  const short = (id: string) => id.replace(/^(bootstrap|preload):/, '')
  // a section that exists but did not fit is never reported as missing
  if (ids.length === 0 && dropped.length > 0 && key !== 'preloaded') {
    return `dropped to fit: ${dropped.map(short).join(', ')}`
  }
  switch (key) {
    case 'system':
      return ids.length > 0 ? ids.join(', ') : 'none'
    case 'bootstrap': {
      if (ids.length > 0) return ids.map(short).join(', ')
      return 'no AGENTS.md, SOUL.md, … in the workspace'
    }
    case 'resumption': {
      if (ids.length > 0) return 'your last words from the previous session'
      const dropped = input.resumption?.tailDropped
      if (dropped === 'same-session') return 'last words are already in this session’s history'
      if (dropped === 'stale') return 'the last session is over a day old'
      return 'nothing to resume yet'
    }
    case 'context-hint': {
      const meta = record(input.turn.vars.contextMeta)
      if (ids.length === 0) return 'no context file'
      const records =
        typeof meta.recordCount === 'number' ? `, ${num(meta.recordCount)} records` : ''
      return `${String(meta.fileName ?? 'context file')} (${String(meta.format ?? '?')}${records})`
    }
    case 'preloaded': {
      const files = record(input.preload?.files)
      const asked =
        strings(files.loaded).length + (Array.isArray(files.skipped) ? files.skipped.length : 0)
      if (ids.length > 0) return ids.map(short).join(', ')
      return asked > 0 ? `none kept (${asked} left out, see below)` : 'none named in the message'
    }
    case 'plan':
      return ids.length > 0 ? 'from the plan phase' : 'no plan phase in this run'
    default:
      return ''
  }
}

/**
 * The budget chart of the first model call of a run: one row per kind of input (system text,
 * bootstrap files, resumption, history, the user's message, context-file hint, preloaded files,
 * plan, prefill, tool definitions) with its token count under the run's counter, the budget the
 * loop fitted the sections into, and everything left out with the reason. Sections are counted
 * in the form the loop kept (a shortened section at its shorter size, a dropped one at 0).
 * Pure: the data comes from the prepared turn and the run's trace events.
 */
export function buildBudgetChart(input: BudgetChartInput): BudgetChart {
  const { turn, event, counter } = input
  const count = (text: string) => Math.max(0, counter.count(text))
  const saved = new Map(event.omissions.map((o) => [o.id, o]))
  const kept = new Set(event.kept)
  const tokens = new Map<Kind, number>()
  const ids = new Map<Kind, string[]>()
  const dropped = new Map<Kind, string[]>()
  const add = (kind: Kind, n: number, id?: string) => {
    tokens.set(kind, (tokens.get(kind) ?? 0) + n)
    if (id !== undefined) ids.set(kind, [...(ids.get(kind) ?? []), id])
  }
  const sides: Array<[Section[], 'system' | 'user']> = [
    [turn.system, 'system'],
    [turn.userSections, 'user'],
  ]
  for (const [sections, side] of sides) {
    for (const s of sections) {
      if (!kept.has(s.id)) {
        const kind = kindOf(s, side)
        dropped.set(kind, [...(dropped.get(kind) ?? []), s.id])
        continue
      }
      const omission = saved.get(s.id)
      add(
        kindOf(s, side),
        count(s.text) - (omission?.reason === 'shortened' ? omission.tokensSaved : 0),
        s.id,
      )
    }
  }
  const messages = turn.messages
  // a compacted session opens with the summary of what came before its kept tail
  const summary = messages.length > 1 ? summaryOf(messages[0]) : undefined
  const summaryTokens =
    summary === undefined ? 0 : estimateRequestTokens({ messages: messages.slice(0, 1) }, counter)
  const history = messages.slice(summary === undefined ? 0 : 1, -1)
  const current = messages.at(-1)
  const historyTokens = estimateRequestTokens({ messages: history }, counter)
  const messageTokensNow = current ? estimateRequestTokens({ messages: [current] }, counter) : 0
  const toolTokens = estimateRequestTokens({ tools: turn.tools }, counter)
  const prefillText = typeof input.prefill?.prefill === 'string' ? input.prefill.prefill : ''
  const rows: BudgetRow[] = BUDGET_ROWS.map((key) => {
    const label = LABELS[key]
    switch (key) {
      case 'summary':
        return {
          key,
          label,
          tokens: summaryTokens,
          detail:
            summary === undefined
              ? 'no compaction yet'
              : 'the compacted history before the kept messages',
        }
      case 'history': {
        const s = input.session
        const detail =
          history.length === 0
            ? 'new session'
            : `${history.length} messages${s && s.kept < s.messages ? ` (the newest ${s.kept} of ${s.messages} stored)` : ''}`
        return { key, label, tokens: historyTokens, detail }
      }
      case 'message':
        return { key, tokens: messageTokensNow, ...lastMessageRow(current, label) }
      case 'prefill': {
        const mode = input.prefill?.mode
        const detail =
          prefillText === ''
            ? `none${input.prefill?.reason ? ` (${String(input.prefill.reason)})` : ''}`
            : mode === 'native'
              ? `sent as the start of the reply: "${prefillText}"`
              : `asked for in the user turn (this model takes no prefill): "${prefillText}"`
        return { key, label, tokens: prefillText === '' ? 0 : count(prefillText), detail }
      }
      case 'tools':
        return { key, label, tokens: toolTokens, detail: turn.tools.map((t) => t.name).join(', ') }
      default:
        return {
          key,
          label,
          tokens: tokens.get(key) ?? 0,
          detail: detailFor(key, ids.get(key) ?? [], input, dropped.get(key as Kind) ?? []),
        }
    }
  })
  const other = tokens.get('other') ?? 0
  if (other > 0)
    rows.push({
      key: 'system',
      label: 'other sections',
      tokens: other,
      detail: (ids.get('other') ?? []).join(', '),
    })
  const notice = tokens.get('notice') ?? 0
  if (notice > 0)
    rows.push({
      key: 'system',
      label: 'omission note',
      tokens: notice,
      detail: 'tells the model what was left out',
    })

  const preloadSkipped = skippedOf(input.preload)
  const preloadIds = new Set(turn.omitted.map((o) => o.id))
  const omitted: BudgetOmission[] = event.omissions.map((o) => {
    const path = o.id.replace(/^preload:/, '')
    const why = preloadIds.has(o.id)
      ? (PRELOAD_WHY[preloadSkipped.get(path) ?? ''] ??
        preloadSkipped.get(path) ??
        'left out by preload')
      : o.reason === 'shortened'
        ? 'shortened to fit the section budget'
        : 'dropped to fit the section budget (lowest priority first)'
    return { what: o.id, why, tokensSaved: o.tokensSaved }
  })
  for (const [path, reason] of preloadSkipped) {
    if (!preloadIds.has(`preload:${path}`))
      omitted.push({ what: `preload:${path}`, why: `refused: ${reason}`, tokensSaved: 0 })
  }
  const s = input.session
  if (s && s.kept < s.messages) {
    omitted.push({
      what: `${s.messages - s.kept} older messages`,
      why: 'history is limited to the newest turns that fit half the context window',
      tokensSaved: 0,
    })
  }
  const window = turn.model.contextWindow
  const computed = window - input.maxTokens - historyTokens - messageTokensNow - toolTokens
  const budgetFormula =
    Math.max(0, computed) === event.budget
      ? `${num(window)} window − ${num(input.maxTokens)} reply − ${num(historyTokens + messageTokensNow)} messages − ${num(toolTokens)} tools`
      : 'set by budgetTokens'
  return {
    model: turn.model.id,
    contextWindow: window,
    maxTokens: input.maxTokens,
    budget: event.budget,
    sectionTokens: event.tokens,
    budgetFormula,
    rows,
    omitted,
  }
}

const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉']

/** A bar of `width` cells for `value` of `max`, in eighths of a cell; at least a sliver when > 0. */
export function bar(value: number, max: number, width: number): string {
  if (value <= 0 || max <= 0) return ''
  const eighths = Math.max(1, Math.round((value / max) * width * 8))
  return '█'.repeat(Math.floor(eighths / 8)) + EIGHTHS[eighths % 8]
}

/** Options of {@link renderBudgetChart}. */
export interface RenderChartOptions {
  /** Bar cells. Default `24`. */
  barWidth?: number
}

/**
 * The chart as lines of text: one bar per row (scaled to the largest row), its tokens and what
 * is in it; then the budget with how it came about, and what was omitted and why.
 */
export function renderBudgetChart(
  chart: BudgetChart,
  c: Colors,
  options: RenderChartOptions = {},
): string[] {
  const width = options.barWidth ?? 24
  const max = Math.max(...chart.rows.map((r) => r.tokens), 1)
  const labelWidth = Math.max(...chart.rows.map((r) => r.label.length))
  const tokenWidth = Math.max(...chart.rows.map((r) => num(r.tokens).length), 5)
  const total = chart.rows.reduce((sum, r) => sum + r.tokens, 0)
  const out = [
    c.bold(
      `context budget · ${chart.model} · ${num(chart.contextWindow)}-token window · before the first call`,
    ),
  ]
  for (const row of chart.rows) {
    const b = bar(row.tokens, max, width)
    const cells = `${b}${' '.repeat(Math.max(0, width + 1 - b.length))}`
    const tokens = num(row.tokens).padStart(tokenWidth)
    const line = `  ${row.label.padEnd(labelWidth)}  ${c.cyan(cells)} ${tokens}  ${row.detail}`
    out.push(row.tokens === 0 ? c.dim(line) : line)
  }
  out.push(
    `  ${'total'.padEnd(labelWidth)}  ${' '.repeat(width + 1)} ${num(total).padStart(tokenWidth)}  of ${num(chart.contextWindow)} (${((total / chart.contextWindow) * 100).toFixed(2)} % of the window)`,
  )
  out.push(
    `  budget for system and user sections: ${num(chart.budget)} tokens (${chart.budgetFormula})`,
  )
  out.push(`  the sections use ${num(chart.sectionTokens)} of it`)
  if (chart.omitted.length === 0) {
    out.push(`  omitted: nothing`)
  } else {
    out.push(c.yellow(`  omitted:`))
    for (const o of chart.omitted) {
      const saved = o.tokensSaved > 0 ? ` (−${num(o.tokensSaved)} tokens)` : ''
      out.push(c.yellow(`    ✂ ${o.what}${saved}: ${o.why}`))
    }
  }
  return out
}
