import type { ReplySpec, ScriptRequest } from '@contextkit/testkit'
import { readConversation } from './cli/scenario-request.js'
import { EXTRACT_PROMPT } from './context-file-prompts.js'
import { RUN_JS_TOOL_NAME } from './run-js-tool.js'

/** The exploration script a model writes when it knows nothing about the data. */
export const EXPLORATION_SCRIPT = `print(typeof __vars.context, __vars.context.length)
print(__vars.context.slice(0, 300))`

interface Shape {
  format: 'ndjson' | 'csv'
  fields: string[]
}

function words(text: string): string[] {
  return text.toLowerCase().match(/[a-z][a-z0-9]+/g) ?? []
}

/** The field a question is about: the one its words name (`authors` → `author`), else the first. */
export function fieldFor(question: string, fields: readonly string[]): string | undefined {
  const asked = words(question)
  return (
    fields.find((f) => {
      const name = f.toLowerCase().split('.').at(-1) ?? f
      return asked.some((w) => w === name || w.startsWith(name) || name.startsWith(w))
    }) ?? fields[0]
  )
}

/** The shape of the data from an exploration script's output (a JSON line or a CSV header). */
function shapeFromPeek(output: string): Shape | undefined {
  const lines = output.split('\n').slice(1)
  for (const line of lines) {
    try {
      const value = JSON.parse(line) as unknown
      if (value && typeof value === 'object' && !Array.isArray(value)) {
        return { format: 'ndjson', fields: Object.keys(value) }
      }
    } catch {
      // not a JSON line
    }
  }
  const header = lines[0]
  return header?.includes(',') ? { format: 'csv', fields: header.split(',') } : undefined
}

/** What a question asks of a field: how many distinct values, or which value is most common. */
export type Asked = 'distinct' | 'most-common'

/** `most-common` for "most common / most frequent / top / popular" questions, else `distinct`. */
export function askedOf(question: string): Asked {
  return /\b(most (common|frequent|used|popular)|top|popular)\b/i.test(question)
    ? 'most-common'
    : 'distinct'
}

/**
 * A script that answers `asked` about `field`, using `__vars.contextMeta` when there. Values are
 * compared by content, not by reference: an array field (tags, hashtags) counts each element, and
 * an object is compared as its JSON.
 */
export function countingScript(shape: Shape, field: string, asked: Asked = 'distinct'): string {
  const f = JSON.stringify(field)
  const rows =
    shape.format === 'csv'
      ? `const [head, ...body] = __vars.context.split('\\n').filter((l) => l.trim() !== '')
const at = head.split(',').indexOf(${f})
const raw = body.map((l) => l.split(',')[at])`
      : `const rows = __vars.context.split('\\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l))
const raw = rows.map((r) => r[${f}])`
  const values = `const values = []
for (const v of raw) { if (Array.isArray(v)) values.push(...v); else if (v !== undefined) values.push(v) }
const key = (v) => (typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v))`
  const answer =
    asked === 'most-common'
      ? `const counts = new Map()
for (const v of values) counts.set(key(v), (counts.get(key(v)) ?? 0) + 1)
let top
let most = 0
for (const [v, n] of counts) if (n > most) { top = v; most = n }
print('most common ' + ${f} + ': ' + top + ' (' + most + ' times)')
SUBMIT(top)`
      : `const distinct = new Set(values.map(key))
print(distinct.size + ' distinct ' + ${f} + ' values')
SUBMIT(distinct.size)`
  return `const meta = __vars.contextMeta
if (meta) print('format ' + meta.format + ', ' + meta.recordCount + ' records')
${rows}
${values}
${answer}`
}

function call(code: string, text: string): ReplySpec {
  return { text, toolUse: { name: RUN_JS_TOOL_NAME, input: { code } } }
}

/**
 * A scripted model for the context-file flow (a testkit script): it answers "how many distinct
 * X" questions about an NDJSON or CSV context. When the user turn describes the file (the
 * context-metadata hint with `Format:` and `Fields:`), its first script already counts, reading
 * `__vars.contextMeta`; without the description its first script explores the data, and the
 * second counts from what it saw. After a failed or stopped script it writes the counting
 * script again. Asked to extract an answer (no `SUBMIT` came), it answers with the last count a
 * script printed, or says it has none.
 */
export const contextFileScript = (req: ScriptRequest): ReplySpec => {
  if (req.lastUserText.includes(EXTRACT_PROMPT)) return extractReply(req)
  const view = readConversation(req)
  const done = view.exchanges.find((e) => e.result?.text.includes('SUBMITTED'))
  if (done) return { text: `Submitted: ${done.result?.text.split('\n').at(-2) ?? ''}` }
  let shape: Shape | undefined
  if (view.hint && view.hint.fields.length > 0) {
    shape = { format: /csv/i.test(view.hint.format) ? 'csv' : 'ndjson', fields: view.hint.fields }
  } else {
    shape = inlineShape(userTexts(req))
  }
  if (!shape) {
    for (const e of view.exchanges) {
      if (e.result && !e.result.isError) shape ??= shapeFromPeek(e.result.text)
    }
  }
  if (!shape) return call(EXPLORATION_SCRIPT, 'Let me look at the data first.')
  const field = fieldFor(view.question, shape.fields) ?? shape.fields[0] ?? 'id'
  const asked = askedOf(view.question)
  const what =
    asked === 'most-common' ? `the most common ${field} value` : `distinct ${field} values`
  return call(countingScript(shape, field, asked), `Counting ${what}.`)
}

/** The extract step's reply: the last `N distinct …` or `most common …` line a script printed. */
function extractReply(req: ScriptRequest): ReplySpec {
  const printed: string[] = []
  for (const m of req.messages) {
    for (const block of Array.isArray(m.content) ? m.content : []) {
      const b = block as { type?: string; content?: unknown }
      if (b.type !== 'tool_result') continue
      const parts = typeof b.content === 'string' ? [{ text: b.content }] : (b.content ?? [])
      for (const part of parts as Array<{ text?: string }>) {
        printed.push(...(part.text ?? '').split('\n'))
      }
    }
  }
  const found = printed.filter((l) => /^\d+ distinct |^most common /.test(l)).at(-1)
  return {
    text: found
      ? `From the scripts: ${found}.`
      : 'No answer yet: the scripts only explored the data (its size and how it starts).',
  }
}

/** The text blocks of the user messages, joined (tool results left out). */
function userTexts(req: ScriptRequest): string {
  const texts: string[] = []
  for (const m of req.messages) {
    if (m.role !== 'user') continue
    if (typeof m.content === 'string') texts.push(m.content)
    else {
      for (const block of m.content as Array<{ type?: string; text?: string }>) {
        if (block.type === 'text' && block.text) texts.push(block.text)
      }
    }
  }
  return texts.join('\n')
}

/** The format and fields of the one-line hint (`--context` text: `detected: NDJSON; fields: "a", "b"`). */
function inlineShape(turn: string): Shape | undefined {
  const m = /detected: ([A-Za-z-]+)[^;\]]*; fields: ((?:"(?:[^"\\]|\\.)*"(?:, )?)+)/.exec(turn)
  if (!m?.[1] || !m[2]) return undefined
  const fields = [...m[2].matchAll(/"((?:[^"\\]|\\.)*)"/g)].map(
    (f) => JSON.parse(`"${f[1]}"`) as string,
  )
  return { format: /csv/i.test(m[1]) ? 'csv' : 'ndjson', fields }
}
