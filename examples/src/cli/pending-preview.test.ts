import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { expect, test } from 'vitest'
import { PREVIEW_LINES, previewWrite, textOnDisk } from './pending-preview.js'

test('a new file: its first lines, then how many more', () => {
  const content = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n')
  const lines = previewWrite(undefined, content)
  expect(lines).toHaveLength(PREVIEW_LINES + 1)
  expect(lines[0]).toBe('+ line 1')
  expect(lines.at(-1)).toBe(`… ${20 - PREVIEW_LINES} more line(s)`)
})

test('an existing file: a diff; the same content: no change', () => {
  expect(previewWrite('a\nb\nc\n', 'a\nB\nc\n')).toEqual([
    '@@ -1,3 +1,3 @@',
    '  a',
    '- b',
    '+ B',
    '  c',
  ])
  expect(previewWrite('same\n', 'same\n')).toEqual([
    '(no change: the file already holds this content)',
  ])
})

test('a preview never exceeds its cap plus the "more" line, whatever the texts', () => {
  fc.assert(
    fc.property(fc.option(fc.string(), { nil: undefined }), fc.string(), (before, after) => {
      expect(previewWrite(before, after).length).toBeLessThanOrEqual(PREVIEW_LINES + 1)
    }),
  )
})

test('the file on disk is read inside the workspace only: a link out or a missing file reads as none', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'pending-preview-'))
  try {
    await writeFile(join(dir, 'notes.md'), 'hello\n')
    await writeFile(join(dir, '..', `outside-${process.pid}.txt`), 'secret\n')
    await symlink(join(dir, '..', `outside-${process.pid}.txt`), join(dir, 'link.md'))
    expect(await textOnDisk(dir, 'notes.md')).toBe('hello\n')
    expect(await textOnDisk(dir, 'link.md')).toBeUndefined()
    expect(await textOnDisk(dir, 'missing.md')).toBeUndefined()
    expect(await textOnDisk(dir, '../notes.md')).toBeUndefined()
  } finally {
    await rm(join(dir, '..', `outside-${process.pid}.txt`), { force: true })
    await rm(dir, { recursive: true, force: true })
  }
})
