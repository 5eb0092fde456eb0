import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { ContextkitError } from '@contextkit/core'
import { readTextFile } from '@contextkit/core/node'
import { readWithinRoot } from '@contextkit/preload/node'

/** Largest context file the runner reads: `64 MiB` (larger files are refused, not cut). */
export const CONTEXT_FILE_MAX_BYTES = 64 * 1024 * 1024

/**
 * A context file the runner may not read: outside the workspace, a symlink out, a secret, …
 * `details.file` is the path as given, `details.why` the reason alone.
 */
export class ContextFileRefusedError extends ContextkitError {
  static override readonly code: string = 'examples_context_file_refused'
}

/** A context file read by {@link readContextFile}. */
export interface ContextFileText {
  /** Absolute path of the file (as named: the workspace joined with the relative path). */
  path: string
  /** Its base name, shown to the model as the source. */
  fileName: string
  /** The whole text. */
  text: string
}

/** Options of {@link readContextFile}. */
export interface ReadContextFileOptions {
  /**
   * Read a path outside the workspace, as given (symlinks followed): what the demo's
   * `--allow-outside-context-file` flag asks for. Default `false`.
   */
  allowOutside?: boolean
  /** Largest file read. Default {@link CONTEXT_FILE_MAX_BYTES}. */
  maxBytes?: number
}

function insideRelative(workspace: string, file: string): string {
  if (!isAbsolute(file)) return file
  const rel = relative(workspace, file)
  // an absolute path outside stays absolute: the path check refuses it by name
  return rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)
    ? file
    : rel.split(sep).join('/')
}

/**
 * Read the runner's context file. By default `file` is workspace-relative (an absolute path
 * inside the workspace is accepted too) and is read through preload's `readWithinRoot`, the
 * reader of preloaded files: no `..` past the workspace, no symlink leading out of it, nothing
 * on the deny list (`.env`, keys), regular UTF-8 text files only. Lines are kept whole (no cut).
 * With `allowOutside`, any path is read as given with core's `readTextFile`.
 *
 * @throws ContextFileRefusedError naming the file and the reason, in one line.
 */
export async function readContextFile(
  workspace: string,
  file: string,
  options: ReadContextFileOptions = {},
): Promise<ContextFileText> {
  const maxBytes = options.maxBytes ?? CONTEXT_FILE_MAX_BYTES
  const root = resolve(workspace)
  if (options.allowOutside) {
    const path = resolve(root, file)
    const read = await readTextFile(path, { maxBytes, binarySniffBytes: 8192 })
    if (!read.ok) throw refused(file, `it cannot be read (${read.problem})`, read.cause)
    return { path, fileName: basename(path), text: read.text }
  }
  const rel = insideRelative(root, file)
  const read = await readWithinRoot(root, rel, {
    maxBytes,
    maxLineLength: Number.MAX_SAFE_INTEGER,
  })
  if (!read.ok) {
    const message = read.error.message.replace(/^"[^"]*" /, '')
    const why = message.charAt(0).toLowerCase() + message.slice(1)
    throw refused(
      file,
      `${why} (context files are read inside the workspace; --allow-outside-context-file reads one elsewhere)`,
      read.error,
    )
  }
  return {
    path: join(root, read.file.path),
    fileName: basename(read.file.path),
    text: read.file.text,
  }
}

function refused(file: string, why: string, cause?: unknown): ContextFileRefusedError {
  return new ContextFileRefusedError(`context file ${file}: ${why}`, {
    ...(cause === undefined ? {} : { cause }),
    details: { file, why },
  })
}
