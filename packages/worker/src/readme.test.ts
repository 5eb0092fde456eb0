import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { runReadmeExample } from '../../../test-utils/readme-example.js'
import { type RealDatabase, realDatabase, realServer, realServerNote } from './test-support.js'

const onServer = 'url' in realServer ? describe : describe.skip

onServer(`README${realServerNote}`, () => {
  let db: RealDatabase
  beforeAll(async () => {
    db = await realDatabase('readme')
    process.env.DATABASE_URL = db.url
  }, 60_000)
  afterAll(async () => {
    delete process.env.DATABASE_URL
    await db?.drop()
  })

  test('the README example runs and prints what it says', async () => {
    const { logs, expected } = await runReadmeExample(new URL('..', import.meta.url))
    expect(expected.length).toBeGreaterThan(0)
    expect(logs).toEqual(expected)
  }, 120_000)
})
