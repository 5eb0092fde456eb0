import type { ScriptRequest } from '@contextkit/testkit'

/** One thing said or done in a conversation, in order, whatever the prompt format. */
export type ConversationEvent =
  | { kind: 'user'; text: string }
  | { kind: 'assistant'; text: string }
  | { kind: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { kind: 'tool_result'; id: string; text: string; isError: boolean }

/** A file whose contents came with the user's turn (preload's `#### \`path\`` sections). */
export interface PreloadedFile {
  path: string
  text: string
}

/** The context-file hint of the user's turn, as far as the scenario needs it. */
export interface ContextHint {
  source: string
  format: string
  records?: number
  fields: string[]
}

/** A tool call of the current turn with its result, once there is one. */
export interface ToolExchange {
  name: string
  input: Record<string, unknown>
  result?: { text: string; isError: boolean }
}

/** What an emulated model reads in a request. */
export interface ConversationView {
  /** The current user turn as sent (the user's words and the sections after them). */
  turnText: string
  /** The user's own words: the current turn up to its first section. */
  question: string
  /** User turns before the current one. */
  earlierQuestions: number
  /** Tool calls made in the current turn, in order, with their results. */
  exchanges: ToolExchange[]
  preloaded: PreloadedFile[]
  hint?: ContextHint
  /** The agent's last words from the previous session, when resumption injected them. */
  resumedTail?: string
  /** Bootstrap file names already in the system prompt (`## AGENTS.md`). */
  systemFiles: string[]
  /** The prefill the model was told to begin with (models without native prefill). */
  instructedPrefix: string
}

interface Block {
  type: string
  [field: string]: unknown
}

const TRANSCRIPT_LABEL = /^(User|Assistant|Human): ?/gm

function blockText(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content
    .map((b: Block) => (b.type === 'text' && typeof b.text === 'string' ? b.text : ''))
    .join('')
}

/** Split a transcript text (`User: …\n\nAssistant: …`) into turns; plain text is one turn. */
function transcriptTurns(text: string, role: 'user' | 'assistant'): ConversationEvent[] {
  const marks = [...text.matchAll(TRANSCRIPT_LABEL)]
  if (marks.length === 0) return text.trim() === '' ? [] : [{ kind: role, text }]
  const out: ConversationEvent[] = []
  for (const [i, m] of marks.entries()) {
    const start = (m.index ?? 0) + m[0].length
    const end = marks[i + 1]?.index ?? text.length
    const kind = m[1] === 'Assistant' ? 'assistant' : 'user'
    out.push({ kind, text: text.slice(start, end).trim() })
  }
  return out
}

const CHATML_TURN = /<\|im_start\|>(\w+)\n([\s\S]*?)(?:<\|im_end\|>|$)/g
const TOOL_CALL = /<tool_call>\s*([\s\S]*?)\s*<\/tool_call>/g
const TOOL_RESPONSE = /<tool_response>\n?([\s\S]*?)\n?<\/tool_response>/g

/**
 * A ChatML prompt (what a completions server gets from `ChatMLFormatter`) as system text and
 * events: Qwen-style `<tool_call>` JSON in assistant turns, `<tool_response>` in user turns
 * (matched to the calls in order).
 */
export function chatmlConversation(prompt: string): {
  system: string
  events: ConversationEvent[]
} {
  let system = ''
  const events: ConversationEvent[] = []
  const pending: string[] = []
  let calls = 0
  for (const m of prompt.matchAll(CHATML_TURN)) {
    const [role, body = ''] = [m[1], m[2]]
    if (role === 'system') {
      system += body
    } else if (role === 'assistant') {
      const text = body.replace(TOOL_CALL, '').trim()
      if (text !== '') events.push({ kind: 'assistant', text })
      for (const call of body.matchAll(TOOL_CALL)) {
        let parsed: { name?: unknown; arguments?: unknown } = {}
        try {
          parsed = JSON.parse(call[1] ?? '{}') as typeof parsed
        } catch {
          // a call the model wrote badly: still a call
        }
        const id = `call_${++calls}`
        pending.push(id)
        events.push({
          kind: 'tool_use',
          id,
          name: String(parsed.name ?? 'unknown'),
          input: (parsed.arguments ?? {}) as Record<string, unknown>,
        })
      }
    } else {
      const responses = [...body.matchAll(TOOL_RESPONSE)]
      if (responses.length === 0) {
        events.push({ kind: 'user', text: body.trim() })
        continue
      }
      for (const r of responses) {
        events.push({
          kind: 'tool_result',
          id: pending.shift() ?? 'call_?',
          text: r[1] ?? '',
          isError: false,
        })
      }
    }
  }
  return { system, events }
}

/** The conversation of a request as one list of events, transcripts unrolled. */
export function conversationEvents(req: ScriptRequest): ConversationEvent[] {
  if (req.endpoint === 'completions') return chatmlConversation(req.lastUserText).events
  const out: ConversationEvent[] = []
  for (const message of req.messages) {
    for (const block of message.content as Block[]) {
      if (block.type === 'text' && typeof block.text === 'string') {
        // a transcript's frame ("[Transcript start]") is not something anyone said
        if (/^\[Transcript [a-z]+\]$/.test(block.text.trim())) continue
        if (block.text.startsWith('\n\nBegin your reply with')) continue
        out.push(...transcriptTurns(block.text, message.role))
      } else if (block.type === 'tool_use') {
        out.push({
          kind: 'tool_use',
          id: String(block.id),
          name: String(block.name),
          input: (block.input ?? {}) as Record<string, unknown>,
        })
      } else if (block.type === 'tool_result') {
        out.push({
          kind: 'tool_result',
          id: String(block.tool_use_id),
          text: blockText(block.content),
          isError: block.is_error === true,
        })
      }
    }
  }
  return out
}

const PRELOADED = /^#### `([^`\n]+)` \(\d+ lines?\)\n(`{3,})[^\n]*\n([\s\S]*?)\n?\2$/gm

function preloadedFiles(text: string): PreloadedFile[] {
  return [...text.matchAll(PRELOADED)].map((m) => ({ path: m[1] ?? '', text: m[3] ?? '' }))
}

function unquote(list: string): string[] {
  return [...list.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1] ?? '')
}

function contextHint(text: string): ContextHint | undefined {
  const start = text.indexOf('[Context available')
  if (start < 0) return undefined
  const block = text.slice(start)
  const line = (name: string) => new RegExp(`^\\s+${name}: (.*)$`, 'm').exec(block)?.[1]
  const records = line('Records')
  return {
    source: line('Source') ?? 'the context',
    format: line('Format') ?? 'unknown',
    ...(records ? { records: Number(records.replaceAll(',', '')) } : {}),
    fields: unquote(line('Fields') ?? ''),
  }
}

/** The quoted tail of resumption's wake-up block: `"…words"` followed by a blank line or the end. */
function resumedTail(system: string): string | undefined {
  const label = 'Your own last words:]'
  const at = system.indexOf(label)
  if (at < 0) return undefined
  const rest = system.slice(at + label.length).replace(/[\u2063\u2064]/g, '')
  const open = rest.indexOf('"')
  if (open < 0) return undefined
  const close = /"\s*(?:\n\s*\n|$)/.exec(rest.slice(open + 1))
  const quoted = close ? rest.slice(open + 1, open + 1 + close.index) : rest.slice(open + 1)
  return quoted.replace(/^…/, '').trim()
}

function instructedPrefix(turnText: string): string {
  const match = /<reply_prefix>\n([\s\S]*?)\n<\/reply_prefix>/.exec(turnText)
  return match?.[1] ?? ''
}

/**
 * Read a request the way the offline scenario's model does: the current question, the tool
 * calls of this turn and their results, preloaded files, the context-file hint and the
 * resumption block. Works for the transcript format (`User: …` in one assistant turn) and for
 * plain messages alike.
 */
export function readConversation(req: ScriptRequest): ConversationView {
  const events = conversationEvents(req)
  let last = -1
  for (const [i, e] of events.entries()) if (e.kind === 'user') last = i
  const turnText = last >= 0 ? (events[last] as { text: string }).text : req.lastUserText
  const results = new Map<string, { text: string; isError: boolean }>()
  for (const e of events.slice(last + 1)) {
    if (e.kind === 'tool_result') results.set(e.id, { text: e.text, isError: e.isError })
  }
  const exchanges: ToolExchange[] = []
  for (const e of events.slice(last + 1)) {
    if (e.kind !== 'tool_use') continue
    const result = results.get(e.id)
    exchanges.push({ name: e.name, input: e.input, ...(result ? { result } : {}) })
  }
  const system =
    req.endpoint === 'completions' ? chatmlConversation(req.lastUserText).system : req.system
  const hint = contextHint(turnText)
  const tail = resumedTail(system)
  return {
    turnText,
    question: turnText.split(/\n\n(?=\[Context available|#### `|## )/)[0]?.trim() ?? '',
    earlierQuestions: Math.max(0, events.filter((e) => e.kind === 'user').length - 1),
    exchanges,
    preloaded: preloadedFiles(turnText),
    ...(hint ? { hint } : {}),
    ...(tail ? { resumedTail: tail } : {}),
    systemFiles: [...system.matchAll(/^## ([^\n]+\.md)$/gm)].map((m) => m[1] ?? ''),
    instructedPrefix: instructedPrefix(
      req.endpoint === 'completions' ? turnText : req.lastUserText,
    ),
  }
}
