// The message of `pnpm demo`: read from a file or standard input (`--message-file`), and
// refused up front when it cannot fit the model's window.
import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { createTokenCounter, getModelInfo } from '@contextkit/core'
import { DemoUsageError } from './errors.js'
import type { CliIO } from './run-cli.js'
import { num } from './terminal.js'

/** Read the message from `file` (`-`: standard input); an empty or missing one is a usage error. */
export async function readMessage(file: string, io: CliIO): Promise<string> {
  let text: string
  if (file === '-') {
    if (!io.stdin) throw new DemoUsageError('message', 'no standard input to read the message from')
    let all = ''
    const decoder = new TextDecoder()
    for await (const chunk of io.stdin)
      all += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true })
    text = all + decoder.decode()
  } else {
    const path = resolve(io.cwd, file)
    text = await readFile(path, 'utf8').catch((error: unknown) => {
      const code = (error as { code?: unknown }).code
      throw new DemoUsageError(
        'message',
        `--message-file ${file}: ${code === 'ENOENT' ? 'no such file' : String(code ?? error)}`,
      )
    })
  }
  if (text.trim() === '') {
    throw new DemoUsageError(
      'message',
      `the message ${file === '-' ? 'on standard input' : `in ${file}`} is empty`,
    )
  }
  return text.trim()
}

/** Tokens the reply is given (`maxTokens` of every call). */
const REPLY_TOKENS = 1024

/** A message that cannot fit the model's window even alone is refused before any call. */
export function checkMessageSize(text: string, model: string): void {
  const info = getModelInfo(model)
  const tokens = createTokenCounter({ model: info }).count(text)
  const room = info.contextWindow - REPLY_TOKENS
  if (tokens > room) {
    throw new DemoUsageError(
      'message',
      `the message is about ${num(tokens)} tokens (${num(text.length)} characters); ${model} takes ${num(info.contextWindow)} tokens in all, ${num(room)} with room for the reply: shorten it or send a file the agent can read`,
    )
  }
}
