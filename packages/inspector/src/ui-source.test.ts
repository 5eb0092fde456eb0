import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, test } from 'vitest'

const UI = fileURLToPath(new URL('../ui/', import.meta.url))

test('the page renders session and trace content as text only: no HTML strings, no inline style', () => {
  const files = readdirSync(UI).filter((f) => /\.tsx?$/.test(f))
  expect(files.length).toBeGreaterThan(3)
  for (const file of files) {
    const text = readFileSync(join(UI, file), 'utf8')
    expect(text, file).not.toMatch(/dangerouslySetInnerHTML|innerHTML|outerHTML|insertAdjacentHTML/)
    expect(text, file).not.toMatch(/\bstyle=|document\.write|\beval\(|new Function/)
  }
})
