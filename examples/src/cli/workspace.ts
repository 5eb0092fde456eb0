import { constants } from 'node:fs'
import { access, lstat, mkdir, readdir, rm, stat } from 'node:fs/promises'
import { join, resolve } from 'node:path'
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

/** Options of {@link prepareWorkspace}. */
export interface PrepareWorkspaceOptions {
  /** Create `dir` from the demo template when it is missing (`--init`, or the default workspace). Default `false`. */
  create?: boolean
}

/**
 * Get `dir` ready: empty, it is filled from the demo template (SOUL.md, AGENTS.md, PREFILL.md,
 * README.md, a small source tree, a context file); missing, it is created so only with `create`
 * (else "no such directory; pass --init"); otherwise it is used as it is. Not a directory,
 * unreadable, or a place where its state directory `dir/.contextkit/` cannot be made (sessions,
 * the trace and the resumption state go there; `/proc` is such a place) is a {@link DemoUsageError}.
 */
export async function prepareWorkspace(
  dir: string,
  options: PrepareWorkspaceOptions = {},
): Promise<PreparedWorkspace> {
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
    await checkStateDir(path, unusable)
  } else {
    if (!options.create) {
      throw new DemoUsageError(
        'workspace',
        `--workspace ${path}: no such directory; pass --init to create a demo workspace there`,
      )
    }
    await mkdir(path, { recursive: true }).catch((error: unknown) => {
      throw unusable(`cannot create it (${code(error)})`, error)
    })
  }
  if (names.length > 0) return { dir: path, created: false }
  await createDemoWorkspace(path)
  return { dir: path, created: true }
}

/**
 * Make sure the workspace can hold its state directory: create `.contextkit` (one level, never
 * recursively) or find it there. A file system that refuses (`/proc`, a read-only mount) is
 * named at once instead of failing, or spinning, later in a store.
 */
async function checkStateDir(
  path: string,
  unusable: (why: string, cause?: unknown) => DemoUsageError,
): Promise<void> {
  const state = join(path, '.contextkit')
  const existing = await lstat(state).catch(() => undefined)
  if (existing?.isDirectory()) return
  // the runner writes only inside the workspace: a planted link would be refused mid-run
  if (existing?.isSymbolicLink()) throw unusable('.contextkit is a symlink')
  if (existing) throw unusable('.contextkit is not a directory')
  try {
    await mkdir(state)
  } catch (error) {
    throw unusable(`cannot create its state directory .contextkit (${code(error)})`, error)
  }
  await rm(state, { recursive: true, force: true })
}
