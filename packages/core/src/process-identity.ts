import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import { errnoCode } from './errno.js'
import { invalidArgument } from './errors.js'

/** This machine's host name, read once. */
export const HOST = hostname()

/** A short, file-name-safe tag of {@link HOST} (8 hex digits), used in side-file names. */
export const HOST_TAG = createHash('sha256').update(HOST).digest('hex').slice(0, 8)

let bootId: Promise<string | null> | undefined

/** The kernel's boot id (Linux), so a start time from an earlier boot never matches. */
function readBootId(): Promise<string | null> {
  bootId ??= readFile('/proc/sys/kernel/random/boot_id', 'utf8').then(
    (text) => text.trim() || null,
    () => null,
  )
  return bootId
}

/**
 * When process `pid` started, as an opaque string (`<boot id>/<start ticks>`), or `null` where
 * it cannot be known (not Linux, no `/proc`, the process is gone). Linux keeps the start time in
 * field 22 of `/proc/<pid>/stat`, counted in clock ticks since boot: two processes that share a
 * pid (one after the other) never share it. Never throws.
 */
export async function processStartTime(pid: number): Promise<string | null> {
  if (!Number.isSafeInteger(pid) || pid <= 0) return null
  let text: string
  try {
    text = await readFile(`/proc/${pid}/stat`, 'utf8')
  } catch {
    return null
  }
  // Field 2 (the command name) is in parentheses and may itself hold spaces or ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
  const ticks = fields[22 - 3]
  if (ticks === undefined || !/^\d+$/.test(ticks)) return null
  return `${(await readBootId()) ?? 'boot'}/${ticks}`
}

/**
 * Whether process `pid` exists on this host (`kill(pid, 0)`; a process we may not signal exists
 * too). Never throws.
 */
export function processAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false
  if (pid === process.pid) return true
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return errnoCode(error) === 'EPERM'
  }
}

/**
 * Whether the process that wrote `{ host, pid, start }` is still running: `false` when it ran on
 * this host and is gone, or its pid now belongs to a process started at another time (a reused
 * pid); `true` when it is verified alive; `'unknown'` when this cannot be told (another host, or
 * no start time on one side), so only the age of what it left can decide.
 *
 * @throws ValidationError when `owner` is not an object.
 */
export async function ownerAlive(owner: {
  host: string
  pid: number
  start: string | null
}): Promise<boolean | 'unknown'> {
  if (typeof owner !== 'object' || owner === null) {
    invalidArgument('ownerAlive', 'owner', 'an object { host, pid, start }', owner)
  }
  if (owner.host !== HOST) return 'unknown'
  if (!processAlive(owner.pid)) return false
  if (owner.start === null) return 'unknown'
  const now = await processStartTime(owner.pid)
  if (now === null) return processAlive(owner.pid) ? 'unknown' : false
  return now === owner.start
}

/** Who this process is: `{ host, pid, start }` as {@link ownerAlive} reads them back. */
export interface ProcessIdentity {
  /** This machine's host name. */
  host: string
  /** This process's id. */
  pid: number
  /** When this process started ({@link processStartTime}), `null` where unknown. */
  start: string | null
}

let identity: Promise<ProcessIdentity> | undefined

/**
 * This process's identity (host name, pid, start time), read once: what a lock or lease
 * records about its holder so that {@link ownerAlive} can later tell whether it still runs.
 * Never throws.
 */
export function processIdentity(): Promise<ProcessIdentity> {
  identity ??= processStartTime(process.pid).then((start) => ({
    host: HOST,
    pid: process.pid,
    start,
  }))
  return identity
}
