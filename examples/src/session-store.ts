import { appendFile, mkdir, readFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { type Message, MessageSchema, parseWith, ValidationError } from '@contextkit/core'

/** A conversation kept as a JSONL file: one {@link Message} per line. */
export interface SessionStore {
  /** The file the session lives in. */
  readonly path: string
  /** Every message, oldest first. A missing file is an empty session. */
  load(): Promise<Message[]>
  /** Append messages (validated first; nothing is written when one is invalid). */
  append(messages: readonly Message[]): Promise<void>
}

function isMissing(error: unknown): boolean {
  return (
    typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'ENOENT'
  )
}

/**
 * A JSONL session store (architecture step 1). Each line is checked with core's `MessageSchema`;
 * a line that is not JSON or not a message throws core's `ValidationError` naming the line.
 */
export function jsonlSessionStore(path: string): SessionStore {
  return {
    path,
    async load() {
      let text: string
      try {
        text = await readFile(path, 'utf8')
      } catch (error) {
        if (isMissing(error)) return []
        throw error
      }
      const messages: Message[] = []
      text.split('\n').forEach((line, index) => {
        if (line.trim() === '') return
        const where = `${path} line ${index + 1}`
        let value: unknown
        try {
          value = JSON.parse(line)
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error)
          throw new ValidationError(`${where} is not JSON: ${message}`, [
            { path: `line ${index + 1}`, message },
          ])
        }
        messages.push(parseWith(MessageSchema, value, where))
      })
      return messages
    },
    async append(messages) {
      if (messages.length === 0) return
      const lines = messages.map((m, i) =>
        JSON.stringify(parseWith(MessageSchema, m, `message ${i} for ${path}`)),
      )
      await mkdir(dirname(path), { recursive: true })
      await appendFile(path, `${lines.join('\n')}\n`, 'utf8')
    },
  }
}
