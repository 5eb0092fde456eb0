import { bench, describe } from 'vitest'
import { cpuNow, mixedTranscript, realisticTranscript, streamAll } from './transcript.js'

const MB = 1024 * 1024

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
