import { Accumulator } from './parser-state.js'
import type { BlockType, StreamEvent, StreamParser } from './types.js'
import { checkText } from './validate.js'

/**
 * The parser of formats whose output needs no parsing (native tool APIs, base-model
 * completions): every chunk is text, emitted as is. Shared by `NativeFormatter` and
 * `CompletionsFormatter`.
 */
export class PassThroughStreamParser implements StreamParser {
  readonly #acc = new Accumulator()

  /** {@inheritDoc StreamParser.processChunk} */
  processChunk(chunk: string): StreamEvent[] {
    checkText(chunk, 'stream chunk')
    this.#acc.add(chunk)
    return chunk === '' ? [] : [{ type: 'text-delta', text: chunk }]
  }

  /** {@inheritDoc StreamParser.flush} */
  flush(): StreamEvent[] {
    return []
  }

  /** {@inheritDoc StreamParser.push} */
  push(content: string): void {
    this.processChunk(content)
  }

  /** {@inheritDoc StreamParser.getAccumulated} */
  getAccumulated(): string {
    return this.#acc.text()
  }

  /** {@inheritDoc StreamParser.reset} */
  reset(): void {
    this.#acc.clear()
  }

  /** {@inheritDoc StreamParser.getCurrentBlockType} */
  getCurrentBlockType(): BlockType {
    return 'text'
  }

  /** Always `0`: the whole reply is one text block. */
  getBlockIndex(): number {
    return 0
  }
}
