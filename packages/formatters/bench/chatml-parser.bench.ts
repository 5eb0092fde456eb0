import { bench, describe } from 'vitest'
import { ChatMLStreamParser, renderQwenToolCall } from '../src/index.js'
import { chunked } from './transcript.js'

function qwenTranscript(bytes: number): string {
  const parts = [
    '<think>\nIf a < b we stop early; otherwise read the file.\n</think>\n\n',
    'Reading the file now, since x < y holds. ',
    `${renderQwenToolCall({ name: 'read_file', input: { path: 'src/app.ts', limit: 200 } })}\n`,
    'Done: the value is <unknown> until the call returns.\n',
  ]
  let out = ''
  for (let i = 0; out.length < bytes; i++) out += parts[i % parts.length]
  return out
}

const chunks = chunked(qwenTranscript(1024 * 1024), 256)

describe('ChatMLStreamParser, 1 MB Qwen transcript', () => {
  bench(
    '1 MB in 256-char chunks',
    () => {
      const parser = new ChatMLStreamParser()
      for (const c of chunks) parser.processChunk(c)
      parser.flush()
    },
    { time: 1500, iterations: 5 },
  )
})
