// Test-only: reads a server-sent events response (the inspector's live streams) one event at a
// time. Comment lines (`: ping`) and `retry:` are skipped.

/** One event of the stream: its `event:` name (`message` when none) and its `data:`. */
export interface SseEvent {
  event: string
  data: string
}

/** The events of `response`, read as they arrive; `close()` cancels the body. */
export interface SseReader {
  /** The next event (waits for it); rejects when the stream ends first. */
  next(): Promise<SseEvent>
  close(): Promise<void>
}

/** Parse one event block (the lines before a blank line); `undefined` for comments and `retry:`. */
function parseBlock(block: string): SseEvent | undefined {
  let event = 'message'
  const data: string[] = []
  for (const line of block.split('\n')) {
    if (line.startsWith('event:')) event = line.slice(6).trim()
    else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''))
  }
  return data.length === 0 ? undefined : { event, data: data.join('\n') }
}

/** Read `response`'s body as server-sent events. */
export function sseReader(response: Response): SseReader {
  if (!response.body) throw new Error(`no body (status ${response.status})`)
  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  return {
    async next() {
      for (;;) {
        const end = buffer.indexOf('\n\n')
        if (end >= 0) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          const event = parseBlock(block)
          if (event) return event
          continue
        }
        const { done, value } = await reader.read()
        if (done) throw new Error('the event stream ended')
        buffer += decoder.decode(value, { stream: true })
      }
    },
    close: () => reader.cancel().catch(() => undefined),
  }
}
