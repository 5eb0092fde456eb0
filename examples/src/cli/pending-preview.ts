import { openWithinRoot, readTextFile } from '@contextkit/core/node'
import { structuredPatch } from 'diff'

/** Lines of a preview shown at most; the rest is counted. */
export const PREVIEW_LINES = 12
/** Largest file on disk compared with the content to be written. */
const MAX_COMPARED_BYTES = 1_048_576

/**
 * The text of `relPath` inside `workspace` as it is on disk now, through core's confined open
 * (no link followed, nothing outside the workspace); `undefined` when there is no such file or
 * it cannot be read as a small UTF-8 text file (the preview then shows the content as new).
 */
export async function textOnDisk(workspace: string, relPath: string): Promise<string | undefined> {
  let file: Awaited<ReturnType<typeof openWithinRoot>>
  try {
    file = await openWithinRoot(workspace, relPath)
  } catch {
    return undefined
  }
  try {
    const read = await readTextFile(file.handle, { maxBytes: MAX_COMPARED_BYTES })
    return read.ok ? read.text : undefined
  } finally {
    await file.handle.close().catch(() => {})
  }
}

/** `+ line` for each line of `text` (a last empty line after a final newline left out). */
function added(text: string): string[] {
  const lines = text.split('\n')
  if (lines.at(-1) === '') lines.pop()
  return lines.map((l) => `+ ${l}`)
}

/**
 * What a write would do, as lines to show before asking: for a new file its first lines
 * (`+ …`), for an existing one a unified diff against it (jsdiff's `structuredPatch`, 1 line of
 * context), for the same content `(no change)`. At most `max` lines, then how many more.
 */
export function previewWrite(
  before: string | undefined,
  after: string,
  max = PREVIEW_LINES,
): string[] {
  let lines: string[]
  if (before === undefined) lines = added(after)
  else if (before === after) return ['(no change: the file already holds this content)']
  else {
    const patch = structuredPatch('a', 'b', before, after, '', '', { context: 1 })
    lines = patch.hunks.flatMap((h) => [
      `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`,
      ...h.lines.filter((l) => !l.startsWith('\\')).map((l) => `${l.slice(0, 1)} ${l.slice(1)}`),
    ])
  }
  if (lines.length <= max) return lines
  return [...lines.slice(0, max), `… ${lines.length - max} more line(s)`]
}
