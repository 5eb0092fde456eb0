import { constants } from 'node:fs'
import { lstat, mkdir, open, realpath } from 'node:fs/promises'
import { join, relative, sep } from 'node:path'
import { type AgentTool, defineTool } from '@contextkit/agent-loop'
import { ContextkitError } from '@contextkit/core'
import {
  checkRelativePath,
  compileDenyList,
  DEFAULT_DENY_LIST,
  isPreloadRefusal,
} from '@contextkit/preload'
import { z } from 'zod'

/** Name of the editor's write tool. */
export const WRITE_FILE_TOOL_NAME = 'write_file'

/** A write the tool refused: outside the root, a dotfile, a secret, a script, too large. */
export class WriteRefusedError extends ContextkitError {
  static override readonly code: string = 'examples_write_refused'
}

/** Options of {@link writeWithinRoot}. */
export interface WriteLimits {
  /** Largest file written. Default `1_048_576` bytes. */
  maxBytes?: number
}

const deny = compileDenyList(DEFAULT_DENY_LIST)
/** Executable scripts the editor never writes (the seed's security rules). */
const SCRIPT = /\.(sh|bash|zsh|fish|ps1|bat|cmd|exe)$/i

function refuse(path: string, why: string): WriteRefusedError {
  return new WriteRefusedError(`Refused to write "${path}": ${why}`, {
    recoverable: true,
    details: { path },
  })
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path)
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !rel.startsWith(sep))
}

/**
 * Write a UTF-8 text file inside `root`, refusing what the editor must never touch. The path
 * string goes through preload's `checkRelativePath` (no `..`, absolute paths, device names or
 * Windows tricks) and preload's deny list (`.env`, keys, `.git/`); dotfiles and dot-directories
 * and executable scripts are refused too. Missing directories are created one level at a time,
 * and none of them may be a symlink; the file is opened with `O_NOFOLLOW`, so a symlink planted
 * at its name is not followed; the real path of its directory must be inside the root's. Throws a
 * {@link WriteRefusedError} for a refusal; returns the normalized path and the bytes written.
 */
export async function writeWithinRoot(
  root: string,
  relPath: string,
  content: string,
  limits: WriteLimits = {},
): Promise<{ path: string; bytes: number }> {
  const checked = checkRelativePath(relPath)
  if (isPreloadRefusal(checked)) throw refuse(String(relPath), checked.message)
  const { path, segments } = checked
  if (deny(segments) !== undefined) throw refuse(path, 'it is on the deny list (secrets, .git)')
  if (segments.some((s) => s.startsWith('.'))) throw refuse(path, 'dotfiles are not edited')
  if (SCRIPT.test(path)) throw refuse(path, 'executable scripts are not edited')
  const bytes = Buffer.byteLength(content, 'utf8')
  if (bytes > (limits.maxBytes ?? 1_048_576)) throw refuse(path, `${bytes} bytes is over the limit`)
  const realRoot = await realpath(root)
  let dir = realRoot
  for (const segment of segments.slice(0, -1)) {
    dir = join(dir, segment)
    const info = await lstat(dir).catch(() => undefined)
    if (info?.isSymbolicLink()) throw refuse(path, `"${segment}" is a symlink`)
    if (info && !info.isDirectory()) throw refuse(path, `"${segment}" is not a directory`)
    if (!info) await mkdir(dir)
  }
  if (!inside(realRoot, await realpath(dir))) throw refuse(path, 'it leaves the project root')
  let handle: Awaited<ReturnType<typeof open>>
  try {
    handle = await open(
      join(dir, segments.at(-1) ?? ''),
      constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW,
      0o644,
    )
  } catch (error) {
    const code = (error as { code?: string }).code
    throw refuse(path, code === 'ELOOP' ? 'it is a symlink' : `it cannot be opened (${code})`)
  }
  try {
    await handle.writeFile(content, 'utf8')
  } finally {
    await handle.close()
  }
  return { path, bytes }
}

/** Input of `write_file`. */
export interface WriteFileInput {
  path: string
  content: string
}

/**
 * `write_file`: replace (or create) a text file inside the project with `content`, through
 * {@link writeWithinRoot}. `onWrite` hears each written path. A refusal is an error result the
 * model reads.
 */
export function writeFileTool(
  root: string,
  onWrite?: (path: string) => void,
): AgentTool<WriteFileInput> {
  return defineTool({
    name: WRITE_FILE_TOOL_NAME,
    description:
      'Write a whole text file inside the project (relative path). It replaces the file. Write several files in one turn when you can.',
    input: z.object({
      path: z.string().min(1).describe('File path relative to the project root'),
      content: z.string().describe('The complete new contents of the file'),
    }),
    async execute({ path, content }) {
      const written = await writeWithinRoot(root, path, content)
      onWrite?.(written.path)
      return `Wrote ${written.path} (${written.bytes} bytes).`
    },
  })
}
