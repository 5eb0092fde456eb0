import type { BlockType, StreamEvent, StreamParser } from './types.js'
import { checkText } from './validate.js'

/**
 * The parser of formats whose output needs no parsing (native tool APIs, base-model
 * completions): every chunk is text, emitted as is. Shared by `NativeFormatter` and
 * `CompletionsFormatter`.
 */
export class PassThroughParser implements StreamParser {
  #pieces: string[] = []

  processChunk(chunk: string): StreamEvent[] {
    checkText(chunk, 'stream chunk')
    if (chunk !== '') this.#pieces.push(chunk)
    return chunk === '' ? [] : [{ type: 'text-delta', text: chunk }]
  }

  flush(): StreamEvent[] {
    return []
  }

  push(content: string): void {
    this.processChunk(content)
  }

  getAccumulated(): string {
    if (this.#pieces.length > 1) this.#pieces = [this.#pieces.join('')]
    return this.#pieces[0] ?? ''
  }

  reset(): void {
    this.#pieces = []
  }

  getCurrentBlockType(): BlockType {
    return 'text'
  }
}
