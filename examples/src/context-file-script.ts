import type { ReplySpec, ScriptRequest } from '@contextkit/testkit'
import { readConversation } from './cli/scenario-request.js'
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

/** A script that counts the distinct values of `field`, using `__vars.contextMeta` when there. */
export function countingScript(shape: Shape, field: string): string {
  const f = JSON.stringify(field)
  const rows =
    shape.format === 'csv'
      ? `const [head, ...body] = __vars.context.split('\\n').filter((l) => l.trim() !== '')
const at = head.split(',').indexOf(${f})
const values = new Set(body.map((l) => l.split(',')[at]))`
      : `const rows = __vars.context.split('\\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l))
const values = new Set(rows.map((r) => r[${f}]))`
  return `const meta = __vars.contextMeta
if (meta) print('format ' + meta.format + ', ' + meta.recordCount + ' records')
${rows}
print(values.size + ' distinct ' + ${f} + ' values')
SUBMIT(values.size)`
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
 * script again.
 */
export const contextFileScript = (req: ScriptRequest): ReplySpec => {
  const view = readConversation(req)
  const done = view.exchanges.find((e) => e.result?.text.includes('SUBMITTED'))
  if (done) return { text: `Submitted: ${done.result?.text.split('\n').at(-2) ?? ''}` }
  let shape: Shape | undefined
  if (view.hint && view.hint.fields.length > 0) {
    shape = { format: /csv/i.test(view.hint.format) ? 'csv' : 'ndjson', fields: view.hint.fields }
  } else {
    for (const e of view.exchanges) {
      if (e.result && !e.result.isError) shape ??= shapeFromPeek(e.result.text)
    }
  }
  if (!shape) return call(EXPLORATION_SCRIPT, 'Let me look at the data first.')
  const field = fieldFor(view.question, shape.fields) ?? shape.fields[0] ?? 'id'
  return call(countingScript(shape, field), `Counting distinct ${field} values.`)
}
