import { lstat, readdir, realpath } from 'node:fs/promises'
import { join, relative, sep } from 'node:path'
import { type AgentTool, defineTool } from '@contextkit/agent-loop'
import {
  checkRelativePath,
  compileDenyList,
  DEFAULT_DENY_LIST,
  isPreloadRefusal,
} from '@contextkit/preload'
import { z } from 'zod'

/** Name of the embedded runner's listing tool. */
export const LIST_FILES_TOOL_NAME = 'list_files'

/** Directories the listing never enters (tool state, VCS data, installed packages). */
export const LIST_SKIPPED_DIRS: readonly string[] = ['.contextkit', '.git', 'node_modules']

/** Input of `list_files`. */
export interface ListFilesInput {
  /** Directory relative to the workspace; default the workspace itself. */
  path?: string | undefined
}

/** Options of {@link listFilesTool}. */
export interface ListFilesToolOptions {
  /** Most entries listed; the rest are counted. Default `200`. */
  maxEntries?: number
  /** Deepest directory level entered below the listed one. Default `4`. */
  maxDepth?: number
}

interface Entry {
  path: string
  bytes: number
}

const deny = compileDenyList(DEFAULT_DENY_LIST)

function inside(root: string, path: string): boolean {
  const rel = relative(root, path)
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !rel.startsWith(sep))
}

async function walk(
  root: string,
  dir: string,
  depth: number,
  limits: Required<ListFilesToolOptions>,
  out: Entry[],
  counts: { more: number },
): Promise<void> {
  const names = (await readdir(dir)).sort()
  for (const name of names) {
    const path = join(dir, name)
    const segments = relative(root, path).split(sep)
    if (deny(segments) !== undefined) continue
    const info = await lstat(path).catch(() => undefined)
    if (!info || info.isSymbolicLink()) continue
    if (info.isDirectory()) {
      if (LIST_SKIPPED_DIRS.includes(name) || depth >= limits.maxDepth) continue
      await walk(root, path, depth + 1, limits, out, counts)
    } else if (info.isFile()) {
      if (out.length < limits.maxEntries) out.push({ path: segments.join('/'), bytes: info.size })
      else counts.more++
    }
  }
}

/**
 * `list_files`: the files under a directory of the workspace, one `path (N bytes)` line each,
 * sorted, at most `maxEntries`. The path string is checked with preload's `checkRelativePath`
 * (no `..`, no absolute paths), the directory's real path must be inside the workspace's,
 * symlinks are not followed, and files on preload's deny list (`.env`, keys, `.git/`) and the
 * runner's own `.contextkit/` are left out. A refusal throws, which the loop turns into an error
 * result the model reads.
 */
export function listFilesTool(
  workspace: string,
  options: ListFilesToolOptions = {},
): AgentTool<ListFilesInput> {
  const limits = { maxEntries: options.maxEntries ?? 200, maxDepth: options.maxDepth ?? 4 }
  return defineTool({
    name: LIST_FILES_TOOL_NAME,
    description:
      'List the files of the workspace (or of one directory in it), with their sizes. `path` is relative to the workspace root; omit it for the whole workspace.',
    input: z.object({
      path: z.string().optional().describe('Directory relative to the workspace (default: all)'),
    }),
    async execute({ path }) {
      const root = await realpath(workspace)
      let dir = root
      if (path !== undefined && path !== '' && path !== '.') {
        const checked = checkRelativePath(path.replace(/\/+$/, ''))
        if (isPreloadRefusal(checked)) throw new Error(`${checked.code}: ${checked.message}`)
        dir = await realpath(join(root, checked.path)).catch(() => {
          throw new Error(`file_not_found: no directory "${path}" in the workspace`)
        })
        if (!inside(root, dir)) throw new Error(`path_outside_root: "${path}" leaves the workspace`)
      }
      const entries: Entry[] = []
      const counts = { more: 0 }
      await walk(root, dir, 0, limits, entries, counts)
      if (entries.length === 0) return 'No files.'
      const lines = entries.map((e) => `${e.path} (${e.bytes.toLocaleString('en-US')} bytes)`)
      if (counts.more > 0) lines.push(`… and ${counts.more} more files`)
      return lines.join('\n')
    },
  })
}
