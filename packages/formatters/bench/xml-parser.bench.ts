import { bench, describe } from 'vitest'
import { IncrementalXmlParser } from '../src/index.js'
import { chunked, mixedTranscript } from './transcript.js'

const MB = 1024 * 1024
const oneMb = mixedTranscript(MB)
const tenMb = mixedTranscript(10 * MB)
const tools = [
  {
    name: 'read_file',
    description: '',
    inputSchema: { type: 'object' as const, properties: { limit: { type: 'integer' } } },
  },
]

function parseAll(chunks: readonly string[]): number {
  const parser = new IncrementalXmlParser({ tools })
  let events = 0
  for (const c of chunks) events += parser.processChunk(c).length
  return events + parser.flush().length
}

describe('IncrementalXmlParser, 1 MB mixed transcript', () => {
  for (const size of [1, 16, 256]) {
    const chunks = chunked(oneMb, size)
    bench(
      `1 MB in ${size}-char chunks`,
      () => {
        parseAll(chunks)
      },
      { time: 1500, iterations: 3 },
    )
  }
})

describe('IncrementalXmlParser scaling (256-char chunks)', () => {
  const small = chunked(oneMb, 256)
  const large = chunked(tenMb, 256)
  bench(
    '1 MB',
    () => {
      parseAll(small)
    },
    { time: 1500, iterations: 5 },
  )
  bench(
    '10 MB',
    () => {
      parseAll(large)
    },
    { time: 3000, iterations: 3 },
  )
})
