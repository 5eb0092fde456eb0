import { bench, describe } from 'vitest'
import { XmlStreamParser } from '../src/index.js'
import { chunked, mixedTranscript, realisticTranscript } from './transcript.js'

const MB = 1024 * 1024
const tools = [
  {
    name: 'read_file',
    description: '',
    inputSchema: { type: 'object' as const, properties: { limit: { type: 'integer' } } },
  },
]

function parseAll(chunks: readonly string[]): number {
  const parser = new XmlStreamParser({ tools })
  let events = 0
  for (const c of chunks) events += parser.processChunk(c).length
  return events + parser.flush().length
}

describe('XmlStreamParser, 1 MB mixed transcript', () => {
  const oneMb = mixedTranscript(MB)
  for (const size of [1, 16, 256]) {
    const chunks = chunked(oneMb, size)
    bench(`1 MB in ${size}-char chunks`, () => void parseAll(chunks), { time: 1500, iterations: 3 })
  }
})

/** Stream `text` in `size`-char chunks cut as they arrive (fresh strings, like a network stream). */
function streamAll(text: string, size: number): number {
  const parser = new XmlStreamParser({ tools })
  let events = 0
  for (let i = 0; i < text.length; i += size)
    events += parser.processChunk(text.slice(i, i + size)).length
  return events + parser.flush().length
}

// Scaling: the same realistic transcript (prose, thinking, tool calls with multi-line values)
// at 1 MB and 10 MB; the goal is 10× the input in at most 11× the time at every chunk size.
// Chunks are cut while streaming rather than held in arrays, so the benchmark's own data does
// not grow the heap the garbage collector traces.
const realistic1 = realisticTranscript(MB)
const realistic10 = realisticTranscript(10 * MB)
for (const size of [16, 256, 4096]) {
  describe(`XmlStreamParser scaling, realistic transcript, ${size}-char chunks`, () => {
    bench('1 MB', () => void streamAll(realistic1, size), { time: 1500, iterations: 5 })
    bench('10 MB', () => void streamAll(realistic10, size), { time: 3000, iterations: 3 })
  })
}
