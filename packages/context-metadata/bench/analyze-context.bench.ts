import { bench, describe } from 'vitest'
import { analyzeContext } from '../src/index.js'
import { csvQuotedNewlines, ndjson, prettyJsonArray } from './fixtures.js'

const MB4 = 4 * 1024 * 1024
const nd = ndjson(MB4)
const csv = csvQuotedNewlines(MB4)
const json = prettyJsonArray(MB4)

describe('analyzeContext on 4 MB', () => {
  bench('NDJSON (goal: median <= 5 ms)', () => {
    analyzeContext(nd, 'feed.ndjson')
  })
  bench('CSV with quoted newlines (goal: median <= 25 ms)', () => {
    analyzeContext(csv, 'data.csv')
  })
  bench('pretty-printed JSON array (goal: median <= 25 ms)', () => {
    analyzeContext(json, 'data.json')
  })
  bench('NDJSON without a file name (content sniffing)', () => {
    analyzeContext(nd)
  })
})
