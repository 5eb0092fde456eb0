import { invalidArgument, ValidationError } from '@contextkit/core'

/**
 * How the JSON of a state file becomes a state and a revision, and back: what the state file
 * functions and {@link fileStateStore} are given. A package with a file format of its own
 * (resumption's self-state keeps its `revision` inside the state) passes one; the default,
 * {@link jsonStateFormat}, keeps any JSON value in an envelope.
 */
export interface StateFileFormat<T> {
  /**
   * The state and its revision (`1` for the first save) in the parsed JSON of a file. Throw a
   * `ValidationError` when the file is damaged (it is moved aside and the `.bak` tried); any
   * other error (a file of a newer format) leaves the file where it is, and no backup is used.
   */
  decode(json: unknown): { state: T; revision: number }
  /**
   * The JSON value to write for `state` saved at `revision`, `nowMs` being the time of the save.
   * What it returns is read back with `decode` before anything is written, so a save the loader
   * would refuse is refused (a `ValidationError`).
   */
  encode(state: T, revision: number, nowMs: number): unknown
}

/** The envelope {@link jsonStateFormat} writes: the revision, the time of the save, the state. */
export interface StateEnvelope<T> {
  /** The revision of this save (`1` for the first). */
  revision: number
  /** When it was saved (ISO 8601). */
  updatedAt: string
  /** The state itself. */
  state: T
}

function isEnvelope(json: unknown): json is StateEnvelope<unknown> {
  if (typeof json !== 'object' || json === null) return false
  const { revision, updatedAt } = json as Partial<StateEnvelope<unknown>>
  return (
    Number.isSafeInteger(revision) &&
    (revision as number) >= 1 &&
    typeof updatedAt === 'string' &&
    'state' in json
  )
}

/**
 * A {@link StateFileFormat} for any JSON value: the file holds
 * `{ "revision": n, "updatedAt": "<ISO time>", "state": … }`. `parse` checks the state read back
 * (throw a `ValidationError` for a value of the wrong shape: a zod schema's `parse` wrapped in
 * core's `parseWith` does); default: any JSON value.
 */
export function jsonStateFormat<T>(parse?: (value: unknown) => T): StateFileFormat<T> {
  if (parse !== undefined && typeof parse !== 'function') {
    invalidArgument('jsonStateFormat', 'parse', 'a function', parse)
  }
  return {
    decode(json) {
      if (!isEnvelope(json)) {
        throw new ValidationError('Invalid state file: expected { revision, updatedAt, state }', [
          { path: '', message: 'expected a state envelope' },
        ])
      }
      const state = parse ? parse(json.state) : (json.state as T)
      return { state, revision: json.revision }
    },
    encode(state, revision, nowMs) {
      const envelope: StateEnvelope<T> = {
        revision,
        updatedAt: new Date(nowMs).toISOString(),
        state,
      }
      return envelope
    },
  }
}
