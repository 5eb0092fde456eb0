import type { BlockType, StreamEvent, StreamParser } from './types.js'

/**
 * The parser of formats whose output needs no parsing (native tool APIs, base-model
 * completions): every chunk is text, emitted as is. Shared by `NativeFormatter` and
 * `CompletionsFormatter`.
 */
export class PassThroughParser implements StreamParser {
  #accumulated = ''

  processChunk(chunk: string): StreamEvent[] {
    this.#accumulated += chunk
    return chunk === '' ? [] : [{ type: 'text-delta', text: chunk }]
  }

  flush(): StreamEvent[] {
    return []
  }

  push(content: string): void {
    this.processChunk(content)
  }

  getAccumulated(): string {
    return this.#accumulated
  }

  reset(): void {
    this.#accumulated = ''
  }

  getCurrentBlockType(): BlockType {
    return 'text'
  }
}
