import { PLAN_SYSTEM_PROMPT, USER_CONTEXT_HEADING } from '@contextkit/agent-loop'
import type { ReplySpec, ScriptRequest } from '@contextkit/testkit'
import { type ConversationView, readConversation } from './cli/scenario-request.js'

/** The field an "add a … field" instruction names (`priority`), else `note`. */
export function fieldOf(instruction: string): string {
  return /\badd an? (\w+) field\b/i.exec(instruction)?.[1]?.toLowerCase() ?? 'note'
}

/** The instruction, the files to modify and the backend models a prompt lists. */
function payloadOf(text: string) {
  const instruction = /## Instruction\n\n([^\n]+)/.exec(text)?.[1] ?? ''
  const section = (title: string) =>
    new RegExp(`## ${title}\\n\\n((?:- [^\\n]*\\n?)+)`).exec(text)?.[1] ?? ''
  const files = [...section('Files to Modify').matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '')
  const models = [...section('Backend Structure').matchAll(/^- model `\w+` in `([^`:]+)/gm)].map(
    (m) => m[1] ?? '',
  )
  const elements = section('Selected Elements')
    .split('\n')
    .filter((l) => l.startsWith('- '))
  const targets = [...new Set([...models, ...files])]
  // the user's answer to the plan call's question, when there was one: it may name the target
  const answered = text.includes(USER_CONTEXT_HEADING)
    ? (new RegExp(`${USER_CONTEXT_HEADING}\\n\\n([\\s\\S]*?)(?:\\n\\n## |$)`).exec(text)?.[1] ?? '')
    : undefined
  const named = targets.filter((t) => answered?.includes(t))
  return { instruction, targets: named.length > 0 ? named : targets, elements, answered }
}

/** The edit the scripted agent makes: a field on a Python model, a badge in a component. */
export function editFile(path: string, text: string, field: string): string {
  const lines = text.split('\n')
  if (path.endsWith('.py')) {
    const at = lines.findIndex((l) => /^class \w+/.test(l))
    if (at < 0) return text
    let end = at + 1
    while (end < lines.length && /^\s+\S/.test(lines[end] ?? '')) end++
    lines.splice(end, 0, `    ${field}: str = "normal"`)
    return lines.join('\n')
  }
  const at = lines.findIndex((l) => /<\/(li|div|article)>/.test(l))
  if (at < 0) return text
  const indent = /^\s*/.exec(lines[at] ?? '')?.[0] ?? ''
  lines.splice(at, 0, `${indent}  <span className="${field}">{task.${field}}</span>`)
  return lines.join('\n')
}

function known(view: ConversationView): Map<string, string> {
  const files = new Map<string, string>()
  for (const p of view.preloaded) files.set(p.path, p.text)
  for (const e of view.exchanges) {
    if (e.name === 'read_file' && e.result && !e.result.isError) {
      files.set(String(e.input.path), e.result.text)
    }
  }
  return files
}

/**
 * A scripted editing agent for the code-editor flow (a testkit script step). Plan call: asks
 * which element when a vague instruction ("make it bigger") meets several selected elements and
 * the user has not answered yet, otherwise plans the edit file by file (only the files the
 * user's answer names, when it names some). Agent calls: reads, in one turn, the target files that
 * were not preloaded; writes every target in one turn (a field on the backend model, a badge in
 * the component); then sums up. So a run with the files preloaded takes three model calls, and
 * one without them four.
 */
export const codeEditorScript = (req: ScriptRequest): ReplySpec => {
  const view = readConversation(req)
  const payload = payloadOf(view.turnText)
  const field = fieldOf(payload.instruction)
  if (req.system.includes(PLAN_SYSTEM_PROMPT.slice(0, 60))) {
    const vague = /\b(it|this|bigger|smaller)\b/i.test(payload.instruction)
    if (payload.answered === undefined && payload.elements.length > 1 && vague) {
      return {
        text: JSON.stringify({
          action: 'clarify',
          question: `Which of the ${payload.elements.length} selected elements should change?`,
          context: `"${payload.instruction}" could mean any of them.`,
        }),
      }
    }
    const steps = payload.targets.map((t, i) =>
      t.endsWith('.py')
        ? `${i + 1}. Add the ${field} field to the model in ${t}`
        : `${i + 1}. Show ${field} in ${t}`,
    )
    return { text: JSON.stringify({ action: 'proceed', plan: steps.join('\n') }) }
  }
  if (view.exchanges.some((e) => e.name === 'write_file' && e.result)) {
    const written = view.exchanges.filter((e) => e.name === 'write_file').map((e) => e.input.path)
    return { text: `Done: added ${field} in ${written.join(' and ')}.` }
  }
  const files = known(view)
  const missing = payload.targets.filter((t) => !files.has(t))
  if (missing.length > 0) {
    return {
      text: `Reading ${missing.join(', ')}.`,
      toolUse: missing.map((path) => ({ name: 'read_file', input: { path } })),
    }
  }
  return {
    text: `Writing ${payload.targets.join(', ')}.`,
    toolUse: payload.targets.map((path) => ({
      name: 'write_file',
      input: { path, content: editFile(path, files.get(path) ?? '', field) },
    })),
  }
}
