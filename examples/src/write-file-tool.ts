import { type AgentTool, type DefineToolOptions, defineTool } from '@contextkit/agent-loop'
import { ContextkitError } from '@contextkit/core'
import { replaceWithinRoot, UnsafeWriteError } from '@contextkit/core/node'
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
  /**
   * More paths never written, in preload's deny-list syntax (`database.py` matches that name in
   * any directory). Default: none.
   */
  protect?: readonly string[]
}

const deny = compileDenyList(DEFAULT_DENY_LIST)
const protectedLists = new WeakMap<readonly string[], ReturnType<typeof compileDenyList>>()

/** The matcher of a `protect` list, compiled once per list. */
function protectedBy(list: readonly string[]): ReturnType<typeof compileDenyList> {
  let matcher = protectedLists.get(list)
  if (!matcher) {
    matcher = compileDenyList(list)
    protectedLists.set(list, matcher)
  }
  return matcher
}
/** Executable scripts the editor never writes (the seed's security rules). */
const SCRIPT = /\.(sh|bash|zsh|fish|ps1|bat|cmd|exe)$/i

function refuse(path: string, why: string): WriteRefusedError {
  return new WriteRefusedError(`Refused to write "${path}": ${why}`, {
    recoverable: true,
    details: { path },
  })
}

/**
 * Write a UTF-8 text file inside `root`, refusing what the editor must never touch. The path
 * string goes through preload's `checkRelativePath` (no `..`, absolute paths, device names or
 * Windows tricks) and preload's deny list (`.env`, keys, `.git/`); dotfiles and dot-directories
 * and executable scripts are refused too. The write itself is core's `replaceWithinRoot`: no
 * symlink followed below the root (directories are walked by descriptor, so swapping one for a
 * symlink mid-write cannot redirect it), a symlinked or hard-linked target refused, the file
 * replaced atomically (temp file + rename). Throws a {@link WriteRefusedError} for a refusal;
 * returns the normalized path and the bytes written.
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
  const guarded = limits.protect?.length ? protectedBy(limits.protect)(segments) : undefined
  if (guarded !== undefined) throw refuse(path, `the project protects it (${guarded})`)
  const bytes = Buffer.byteLength(content, 'utf8')
  if (bytes > (limits.maxBytes ?? 1_048_576)) throw refuse(path, `${bytes} bytes is over the limit`)
  try {
    await replaceWithinRoot(root, path, content)
  } catch (error) {
    if (!UnsafeWriteError.isInstance(error)) throw error
    throw refuse(path, String(error.details.why ?? error.message))
  }
  return { path, bytes }
}

/** Input of `write_file`. */
export interface WriteFileInput {
  path: string
  content: string
}

const WRITE_FILE_INPUT = z.object({
  path: z.string().min(1).describe('File path relative to the project root'),
  content: z.string().describe('The complete new contents of the file'),
})

/** Options of {@link writeFileTool}. */
export interface WriteFileToolOptions {
  /**
   * Whether a write needs a person's yes: `'ask'` pauses the run (`awaiting_approval`) until a
   * later run decides; `'allow'` (default) writes at once; a function decides per write
   * (`'deny'` refuses it with an error result the model reads).
   */
  approval?: DefineToolOptions<typeof WRITE_FILE_INPUT>['approval']
  /** Limits of every write ({@link WriteLimits}: `maxBytes`, `protect`). Default: none. */
  limits?: WriteLimits
}

/**
 * `write_file`: replace (or create) a text file inside the project with `content`, through
 * {@link writeWithinRoot}. `onWrite` hears each written path. A refusal is an error result the
 * model reads. Writing the same content again gives the same file, so the tool is idempotent (a
 * run resumed after a crash may run it again).
 */
export function writeFileTool(
  root: string,
  onWrite?: (path: string) => void,
  options: WriteFileToolOptions = {},
): AgentTool<WriteFileInput> {
  return defineTool({
    idempotent: true,
    ...(options.approval ? { approval: options.approval } : {}),
    name: WRITE_FILE_TOOL_NAME,
    description:
      'Write a whole text file inside the project (relative path). It replaces the file. Write several files in one turn when you can.',
    input: WRITE_FILE_INPUT,
    async execute({ path, content }) {
      const written = await writeWithinRoot(root, path, content, options.limits)
      onWrite?.(written.path)
      return `Wrote ${written.path} (${written.bytes} bytes).`
    },
  })
}
