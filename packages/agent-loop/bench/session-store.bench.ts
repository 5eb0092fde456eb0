import { statSync, truncateSync } from 'node:fs'
import { sessionMessages } from '@contextkit/core'
import { bench, describe } from 'vitest'
import { jsonlSessionStore, limitHistory } from '../src/index.js'
import { benchDir, realisticEntry, realisticSession } from './session-fixtures.js'

// Issue goals: an append to a 10,000-entry session costs at most 1.5x an append to a 10-entry
// one (append is O(1) in session length); loading a 10,000-entry session takes at most 50 ms.

const dir = benchDir('sessions')
const durable = jsonlSessionStore(dir)
const fast = jsonlSessionStore(dir, { fsync: false })
await durable.append('small', realisticSession('small', 10))
await durable.append('large', realisticSession('large', 10_000))
const sizes = {
  small: statSync(durable.pathOf('small')).size,
  large: statSync(durable.pathOf('large')).size,
}

/** Append one realistic entry, then cut the file back so the session keeps its length. */
async function appendOne(store: typeof durable, id: 'small' | 'large'): Promise<void> {
  await store.append(id, [realisticEntry(20_000)])
  truncateSync(store.pathOf(id), sizes[id])
}

describe('append one entry (fsync on, the default)', () => {
  bench('to a 10-entry session', () => appendOne(durable, 'small'), { time: 2000 })
  bench('to a 10,000-entry session', () => appendOne(durable, 'large'), { time: 2000 })
})

describe('append one entry (fsync off)', () => {
  bench('to a 10-entry session', () => appendOne(fast, 'small'), { time: 2000 })
  bench('to a 10,000-entry session', () => appendOne(fast, 'large'), { time: 2000 })
})

describe(`load (10,000 entries, ${(sizes.large / 1e6).toFixed(1)} MB)`, () => {
  bench('load a 10,000-entry session', () => durable.load('large').then(() => undefined), {
    time: 3000,
  })
})

const history = sessionMessages((await durable.load('large')).entries)
describe('limitHistory (10,000 messages)', () => {
  bench('last 20 turns within 100k tokens', () => {
    limitHistory(history, { turns: 20, tokens: 100_000 })
  })
})
