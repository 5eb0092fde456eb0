import { join } from 'node:path'
import { jsonlSessionStore } from '@contextkit/store-files'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { tempDir } from '../../../../test-utils/temp-dir.js'
import { memorySessionStore } from '../test-support.js'
import { sessionResumeChecks } from './session-resume-checks.js'

let work: Awaited<ReturnType<typeof tempDir>>
let n = 0
beforeAll(async () => {
  work = await tempDir('resume-checks')
})
afterAll(() => work.cleanup())

describe('sessionResumeChecks on the JSONL file store (store-files)', () => {
  const jsonl = () => jsonlSessionStore(join(work.dir, `s${n++}`), { fsync: false })
  for (const check of sessionResumeChecks(jsonl)) test(check.name, check.run)
})

describe('sessionResumeChecks on a store without loadTail', () => {
  for (const check of sessionResumeChecks(memorySessionStore)) test(check.name, check.run)
})

test('a makeStore that is not a function is a ValidationError', () => {
  expect(() => sessionResumeChecks(42 as never)).toThrow(/makeStore/)
})
