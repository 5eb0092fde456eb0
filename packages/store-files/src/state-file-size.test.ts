import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { ValidationError } from '@contextkit/core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { tempDir } from '../../../test-utils/temp-dir.js'
import { saveStateFile } from './state-file.js'
import { STATE_FILE_MAX_BYTES } from './state-file-io.js'
import { jsonStateFormat } from './state-format.js'

// A state file is read as one string: its size is capped at save time, never found too big to
// read (the resumption state file is this file).

let work: Awaited<ReturnType<typeof tempDir>>
beforeAll(async () => {
  work = await tempDir('state-size')
})
afterAll(() => work.cleanup())

const thrown = async (f: () => Promise<unknown>) =>
  f().then(
    () => 'resolved',
    (e: unknown) => e,
  )

describe('state file size', () => {
  test('maxBytes above STATE_FILE_MAX_BYTES (256 MiB) is a ValidationError naming it', async () => {
    const path = join(work.dir, 'cap.json')
    const error = await thrown(() =>
      saveStateFile(path, jsonStateFormat(), { a: 1 }, { maxBytes: STATE_FILE_MAX_BYTES + 1 }),
    )
    expect(ValidationError.isInstance(error)).toBe(true)
    expect(String((error as Error).message)).toMatch(/maxBytes/)
    expect(existsSync(path)).toBe(false)
  })

  test('a state whose JSON passes the string limit is refused at save, typed, nothing written', async () => {
    const path = join(work.dir, 'huge.json')
    const half = 'h'.repeat(300 * 1024 * 1024) // two of them: past V8's 2^29 − 24 units
    const error = await thrown(() =>
      saveStateFile(
        path,
        jsonStateFormat(),
        { a: half, b: half },
        { maxBytes: STATE_FILE_MAX_BYTES },
      ),
    )
    expect(ValidationError.isInstance(error)).toBe(true)
    expect((error as ValidationError).issues).toEqual([
      { path: 'state', message: expect.stringMatching(/more than a string can hold/) },
    ])
    expect(existsSync(path)).toBe(false)
  }, 120_000)
})
