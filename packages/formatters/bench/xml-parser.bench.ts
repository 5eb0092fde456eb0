import { bench, describe } from 'vitest'
import { XmlStreamParser } from '../src/index.js'
import { cpuNow, mixedTranscript, realisticTranscript } from './transcript.js'

const MB = 1024 * 1024
const tools = [
  {
    name: 'read_file',
    description: '',
    inputSchema: { type: 'object' as const, properties: { limit: { type: 'integer' } } },
  },
]

/**
 * Stream `text` in `size`-char chunks cut as they arrive (fresh strings, like a network stream;
 * no array of a million chunks stays alive for the garbage collector to trace).
 */
function streamAll(text: string, size: number): number {
  const parser = new XmlStreamParser({ tools })
  let events = 0
  for (let i = 0; i < text.length; i += size)
    events += parser.processChunk(text.slice(i, i + size)).length
  return events + parser.flush().length
}

describe('XmlStreamParser, 1 MB mixed transcript', () => {
  const oneMb = mixedTranscript(MB)
  for (const size of [1, 16, 256]) {
    bench(`1 MB in ${size}-char chunks`, () => void streamAll(oneMb, size), {
      time: 1500,
      iterations: 3,
    })
  }
})

// Scaling: the same realistic transcript (prose, thinking, tool calls with multi-line values)
// at 1 MB and 10 MB; the goal is 10× the input in at most 11× the time at every chunk size.
// Time is CPU time (`cpuNow`), so the ratio does not depend on how often the shared machine
// preempted the longer run.
const realistic1 = realisticTranscript(MB)
const realistic10 = realisticTranscript(10 * MB)
for (const size of [16, 256, 4096]) {
  describe(`XmlStreamParser scaling, realistic transcript, ${size}-char chunks`, () => {
    bench('1 MB', () => void streamAll(realistic1, size), {
      time: 1500,
      iterations: 5,
      now: cpuNow,
    })
    bench('10 MB', () => void streamAll(realistic10, size), {
      time: 3000,
      iterations: 3,
      now: cpuNow,
    })
  })
}
