import type { ReplySpec, Script, ScriptRequest } from '@contextkit/testkit'
import { type ConversationView, readConversation, type ToolExchange } from './scenario-request.js'

/**
 * What the demo prints before each offline reply, to say what answered. It is printed beside the
 * reply, never part of it: the reply goes into the session log, and from there into the next
 * session's resumption text, where the words would read as the model's.
 */
export const OFFLINE_ANSWER_MARK = '(offline emulator)'

/** Files read at most in one step when the question names none. */
const MAX_READS = 3
/** Larger files are not worth reading for an overview. */
const MAX_READ_BYTES = 16_384
const TEXT_FILE = /\.(md|txt|ts|tsx|js|jsx|mjs|cjs|json|ndjson|jsonl|csv|py|toml|ya?ml|css|html)$/i
const STOP_WORDS = new Set(
  'the and for are was what which where when how does this that with from into about file files workspace there here have has its'.split(
    ' ',
  ),
)

interface Listed {
  path: string
  bytes: number
}

function listed(exchange: ToolExchange | undefined): Listed[] {
  const text = exchange?.result && !exchange.result.isError ? exchange.result.text : ''
  return [...text.matchAll(/^(.+) \(([\d,]+) bytes\)$/gm)].map((m) => ({
    path: m[1] ?? '',
    bytes: Number((m[2] ?? '0').replaceAll(',', '')),
  }))
}

/** Workspace paths the question names (`src/app.ts`, `README.md`). */
export function mentionedPaths(question: string): string[] {
  const found = question.match(
    /(?<![\w/.-])[\w.-]*[\w-]\/[\w./-]*\w|(?<![\w/.-])[\w-]+\.[a-z]{1,6}\b/gi,
  )
  return [...new Set((found ?? []).filter((p) => !p.includes('://') && !p.startsWith('.')))]
}

function words(text: string): string[] {
  return (text.toLowerCase().match(/[a-z][a-z0-9]{2,}/g) ?? []).filter((w) => !STOP_WORDS.has(w))
}

/** Which listed files to read for `question`: the ones its words name, else an overview. */
export function filesToRead(question: string, files: readonly Listed[], skip: readonly string[]) {
  const asked = words(question)
  const candidates = files.filter(
    (f) => TEXT_FILE.test(f.path) && f.bytes <= MAX_READ_BYTES && !skip.includes(f.path),
  )
  const score = (f: Listed) => {
    const parts = words(f.path.replace(/[./_-]/g, ' '))
    const hits = asked.filter((w) => parts.some((p) => p.startsWith(w) || w.startsWith(p))).length
    return hits * 10 + (f.path.startsWith('src/') ? 2 : 0) + (/^readme/i.test(f.path) ? 3 : 0)
  }
  return [...candidates]
    .sort((a, b) => score(b) - score(a) || a.path.localeCompare(b.path))
    .slice(0, MAX_READS)
    .map((f) => f.path)
}

function firstWords(text: string, n: number): string {
  const w = text.split(/\s+/)
  return w.length <= n ? text : `${w.slice(0, n).join(' ')}…`
}

function lastWords(text: string, n: number): string {
  const w = text.trim().split(/\s+/)
  return w.length <= n ? text.trim() : `…${w.slice(-n).join(' ')}`
}

function lines(text: string): number {
  return text === '' ? 0 : text.replace(/\n$/, '').split('\n').length
}

/** A one-line description of a file from its contents. */
export function describeFile(path: string, text: string): string {
  if (/\.(ndjson|jsonl)$/i.test(path)) {
    const rows = text.split('\n').filter((l) => l.trim() !== '')
    let fields: string[] = []
    try {
      fields = Object.keys(JSON.parse(rows[0] ?? '{}') as object)
    } catch {
      // not JSON after all: say how many lines
    }
    return `${rows.length} records${fields.length > 0 ? ` with fields ${fields.join(', ')}` : ''}`
  }
  if (/\.md$/i.test(path)) {
    const heading = /^#+ (.+)$/m.exec(text)?.[1]
    const body = text
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l !== '' && !l.startsWith('#'))
    const bullets = text.split('\n').filter((l) => /^\s*[-*] /.test(l)).length
    const what = body ? `: ${firstWords(body.replace(/^[-*] /, ''), 16)}` : ''
    return `${heading ? `"${heading}"` : `${lines(text)} lines`}${bullets > 1 ? ` (${bullets} points)` : ''}${what}`
  }
  if (/\.[cm]?[jt]sx?$/i.test(path)) {
    const exported = [
      ...text.matchAll(
        /^export (?:default )?(?:async )?(?:function|const|class|interface|type) (\w+)/gm,
      ),
    ].map((m) => m[1])
    const imports = [...text.matchAll(/from '(\.[^']+)'/g)].map((m) => m[1])
    const parts = [`${lines(text)} lines`]
    if (exported.length > 0) parts.push(`exports ${exported.join(', ')}`)
    if (imports.length > 0) parts.push(`uses ${[...new Set(imports)].join(', ')}`)
    return parts.join(', ')
  }
  return `${lines(text)} lines`
}

/** Questions that ask the agent to carry on rather than to look something up. */
const RESUME_QUESTION =
  /\b(where were we|continue|go on|carry on|pick(?:ing)? up|resume|what next|next step)\b/i

function resumeAnswer(tail: string): string {
  const last = tail.trim().split('\n').at(-1)?.trim() ?? tail
  return `Picking up where I stopped. My last words were: "${last}" That is still the next step; say the word and I will start on it.`
}

function lead(view: ConversationView, req: ScriptRequest): string {
  // native prefill: the reply continues it; asked by instruction, the turn's first reply begins with it
  if (req.prefill !== undefined) return ' '
  if (view.exchanges.length > 0) return ''
  return view.instructedPrefix === '' ? '' : `${view.instructedPrefix} `
}

/** A reply as a ChatML completion: Qwen `<tool_call>` JSON after the text, then the end token. */
function asCompletion(reply: ReplySpec): string {
  const calls = reply.toolUse === undefined ? [] : [reply.toolUse].flat()
  const rendered = calls.map(
    (c) => `\n<tool_call>\n${JSON.stringify({ name: c.name, arguments: c.input })}\n</tool_call>`,
  )
  return `${reply.text ?? ''}${rendered.join('')}<|im_end|>`
}

function readsOf(view: ConversationView) {
  return view.exchanges.filter((e) => e.name === 'read_file' && e.result)
}

function answer(view: ConversationView): string {
  const out: string[] = []
  if (view.resumedTail) {
    const tail = lastWords(view.resumedTail, 14)
    out.push(`Picking up where I stopped last time ("${tail}").`)
  }
  if (view.earlierQuestions > 0) {
    out.push(`This session already holds ${view.earlierQuestions} earlier question(s).`)
  }
  const files = listed(view.exchanges.find((e) => e.name === 'list_files'))
  if (files.length > 0) {
    out.push(`\nThe workspace has ${files.length} files: ${files.map((f) => f.path).join(', ')}.`)
  }
  const described: string[] = []
  for (const p of view.preloaded)
    described.push(`- ${p.path} (preloaded): ${describeFile(p.path, p.text)}`)
  for (const r of readsOf(view)) {
    const path = String(r.input.path)
    described.push(
      r.result?.isError
        ? `- ${path}: I could not read it (${r.result.text.split('\n')[0]})`
        : `- ${path}: ${describeFile(path, r.result?.text ?? '')}`,
    )
  }
  for (const name of view.systemFiles) {
    if (files.some((f) => f.path === name)) described.push(`- ${name}: in my system prompt already`)
  }
  if (described.length > 0) out.push(`\nWhat I found:\n${described.join('\n')}`)
  if (view.hint) {
    const h = view.hint
    const records = h.records === undefined ? '' : ` with ${h.records} records`
    const fields = h.fields.length > 0 ? ` (fields ${h.fields.join(', ')})` : ''
    out.push(`\nThe context file ${h.source} is ${h.format}${records}${fields}.`)
  }
  if (described.length === 0 && files.length === 0 && !view.hint) {
    out.push(`I found nothing in the workspace that answers "${view.question}".`)
  }
  const code = [
    ...view.preloaded.map((p) => ({ path: p.path, text: p.text })),
    ...readsOf(view)
      .filter((r) => !r.result?.isError)
      .map((r) => ({ path: String(r.input.path), text: r.result?.text ?? '' })),
  ].filter((f) => /\.[cm]?[jt]sx?$/.test(f.path))
  const target = code[0]
  const fn = target && /^export (?:async )?function (\w+)/m.exec(target.text)?.[1]
  // advice about malformed data only for code that parses data: the rest gets a plain next step
  const parses = target !== undefined && /JSON\.parse|\.split\(/.test(target.text)
  out.push(
    target
      ? `\nNext I would add a test for ${fn ? `${fn} in ` : ''}${target.path}${parses ? ', starting with a malformed line in the data' : ''}.`
      : '\nAsk me about any of these files and I will read it.',
  )
  return out.join(' ').replace(/ \n/g, '\n')
}

/**
 * The offline demo's emulated model, as a testkit script: it answers any question about the
 * demo workspace (or any small workspace) the way an agent should, reading before it speaks.
 *
 * 1. First call of a turn: read the files the question names (`read_file`, several at once),
 *    unless they were preloaded into the turn; otherwise look around with `list_files`.
 * 2. After a listing: read up to three small text files that the question's words point to
 *    (an overview when none do), leaving out the bootstrap files already in the system prompt.
 * 3. Then answer from what the tools returned, the preloaded files, the context-file hint, and
 *    the resumption block ("Picking up where I stopped…") when there is one.
 *
 * A question that asks to write a file ("… to notes.md") lists the workspace, calls `write_file`
 * with a summary of the listing, then says whether the file was written or not (quoting the
 * denial's reason when the call was not approved).
 *
 * Every answer says it came from the emulator. It is a function of the request only, and it
 * answers the OpenAI-compatible `/v1/completions` endpoint too (a ChatML prompt in, Qwen-style
 * `<tool_call>` JSON out), so the same scenario stands in for a local model.
 */
export const offlineScenario: Script = (req): ReplySpec | string => {
  const reply = scenarioReply(req)
  return req.endpoint === 'completions' ? asCompletion(reply) : reply
}

/** A request to write a file: "Write a summary of the workspace to notes.md". */
const WRITE_REQUEST =
  /\b(?:write|save|put)\b.*?\b(?:to|into|as|in)\s+([\w-][\w./-]*\.[a-z]{1,6})\b/i

/** The file the question asks the agent to write, if it asks for one. */
export function writeTarget(question: string): string | undefined {
  return WRITE_REQUEST.exec(question)?.[1]
}

/** The answer after `write_file` came back: written, refused, or not approved (with the reason). */
function afterWrite(path: string, result: { text: string; isError: boolean }): string {
  // the tool's own line already says it (`Wrote notes.md (312 bytes).`): said once
  if (!result.isError) return `Done. ${result.text}`
  const reason = /Reason: (.+)$/m.exec(result.text)?.[1]
  if (/not approved/i.test(result.text)) {
    return `I did not write ${path}: the write was not approved${reason ? ` (reason: "${reason}")` : ''}. Nothing was changed.`
  }
  return `I could not write ${path}: ${result.text.split('\n')[0]}`
}

/** List the workspace, write a summary of it to `path`, then say what happened to the write. */
function writeReply(view: ConversationView, path: string, start: string): ReplySpec {
  const write = view.exchanges.find((e) => e.name === 'write_file' && e.result)
  if (write?.result) return { text: `${start}${afterWrite(path, write.result)}` }
  const listing = view.exchanges.find((e) => e.name === 'list_files')
  if (!listing) {
    return {
      text: `${start}Let me look at what is in the workspace first.`,
      toolUse: { name: 'list_files', input: {} },
    }
  }
  const files = listed(listing)
  const content = `# Workspace summary\n\n${files.length} files:\n\n${files.map((f) => `- ${f.path} (${f.bytes} bytes)`).join('\n')}\n`
  return {
    text: `${start}I will write the summary to ${path}.`,
    toolUse: { name: 'write_file', input: { path, content } },
  }
}

function scenarioReply(req: ScriptRequest): ReplySpec {
  const view = readConversation(req)
  const start = lead(view, req)
  const target = writeTarget(view.question)
  if (target !== undefined) return writeReply(view, target, start)
  if (view.exchanges.length === 0) {
    const preloaded = view.preloaded.map((p) => p.path)
    const named = mentionedPaths(view.question).filter((p) => !preloaded.includes(p))
    if (view.resumedTail && named.length === 0 && RESUME_QUESTION.test(view.question)) {
      return { text: `${start}${resumeAnswer(view.resumedTail)}` }
    }
    if (named.length > 0) {
      return {
        text: `${start}I will read ${named.join(' and ')} first.`,
        toolUse: named.map((path) => ({ name: 'read_file', input: { path } })),
      }
    }
    if (preloaded.length === 0) {
      return {
        text: `${start}Let me look at what is in the workspace.`,
        toolUse: { name: 'list_files', input: {} },
      }
    }
    return { text: `${start}${answer(view)}` }
  }
  const listing = view.exchanges.find((e) => e.name === 'list_files')
  if (listing && readsOf(view).length === 0) {
    const toRead = filesToRead(view.question, listed(listing), [
      ...view.systemFiles,
      ...view.preloaded.map((p) => p.path),
      'PREFILL.md',
    ])
    if (toRead.length > 0) {
      return {
        text: `${start}I will read ${toRead.join(', ')}.`,
        toolUse: toRead.map((path) => ({ name: 'read_file', input: { path } })),
      }
    }
  }
  return { text: `${start}${answer(view)}` }
}
