import { constants } from 'node:fs'
import { access, mkdir, readdir, stat } from 'node:fs/promises'
import { resolve } from 'node:path'
import { createDemoWorkspace } from '../demo-workspace.js'
import { DemoUsageError } from './errors.js'

/** A workspace ready for the runner. */
export interface PreparedWorkspace {
  dir: string
  /** Whether it was filled from the demo template just now. */
  created: boolean
}

function code(error: unknown): string {
  const c = (error as { code?: unknown }).code
  return typeof c === 'string' ? c : 'error'
}

/**
 * Get `dir` ready: missing or empty, it is created from the demo template (SOUL.md, AGENTS.md,
 * PREFILL.md, README.md, a small source tree, a context file); otherwise it is used as it is.
 * Not a directory, unreadable or not writable (sessions, the trace and the resumption state go
 * to `dir/.contextkit/`) is a {@link DemoUsageError}.
 */
export async function prepareWorkspace(dir: string): Promise<PreparedWorkspace> {
  const path = resolve(dir)
  const unusable = (why: string, cause?: unknown) =>
    new DemoUsageError('workspace', `cannot use --workspace ${path}: ${why}`, { cause })
  const info = await stat(path).catch((error: unknown) => {
    if (code(error) === 'ENOENT') return undefined
    throw unusable(code(error), error)
  })
  if (info && !info.isDirectory()) throw unusable('not a directory')
  let names: string[] = []
  if (info) {
    names = await readdir(path).catch((error: unknown) => {
      throw unusable(`cannot read it (${code(error)})`, error)
    })
    await access(path, constants.W_OK).catch((error: unknown) => {
      throw unusable(`not writable (${code(error)})`, error)
    })
  } else {
    await mkdir(path, { recursive: true }).catch((error: unknown) => {
      throw unusable(`cannot create it (${code(error)})`, error)
    })
  }
  if (names.length > 0) return { dir: path, created: false }
  await createDemoWorkspace(path)
  return { dir: path, created: true }
}
