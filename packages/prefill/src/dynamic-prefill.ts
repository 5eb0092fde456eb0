import type { BigIntStats } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { describeError, type Message, type ModelInfo, TIMED_OUT, within } from '@contextkit/core'
import { fileStamp } from '@contextkit/core/node'
import * as z from 'zod'
import { PrefillGenerateError, PrefillTimeoutError } from './errors.js'

/** Facts about the call a dynamic prefill is generated for. */
export interface PrefillGenerateContext {
  /** The workspace the module was loaded from. */
  workspace: string
  /** The run's id, when the middleware runs in one. */
  runId?: string
  /** The run's session, when it has one. */
  sessionId?: string
  /** The turn's `vars` (read-only by convention). */
  vars: Readonly<Record<string, unknown>>
  /** Aborted when `timeoutMs` passes or the run is aborted; stop working when it fires. */
  signal: AbortSignal
}

/** What `generate` receives. */
export interface PrefillGenerateInput {
  /** The model of this call. */
  model: ModelInfo
  /** The conversation so far (history plus the current user turn). */
  history: readonly Message[]
  /** Where and for what the prefill is made: workspace, run, vars, abort signal. */
  context: PrefillGenerateContext
}

/**
 * The function a `PREFILL.mjs` / `PREFILL.js` module exports as `generate` (a named export, or a
 * `generate` property of its default export, or a default-exported function). It returns the
 * prefill text; `undefined`, `null` or blank text means no prefill for this call.
 */
export type PrefillGenerator = (
  input: PrefillGenerateInput,
) => string | undefined | null | Promise<string | undefined | null>

/** Outcome of running a dynamic module. */
export type DynamicRun =
  | { kind: 'text'; text: string; path: string }
  | { kind: 'failed'; error: PrefillGenerateError | PrefillTimeoutError }

const ResultSchema = z.union([z.string(), z.undefined(), z.null()])
const GeneratorHolderSchema = z.looseObject({ generate: z.custom<PrefillGenerator>(isFunction) })

function isFunction(value: unknown): boolean {
  return typeof value === 'function'
}

function findGenerator(mod: unknown): PrefillGenerator | undefined {
  const direct = GeneratorHolderSchema.safeParse(mod)
  if (direct.success) return direct.data.generate
  const def = (mod as { default?: unknown } | null)?.default
  const nested = GeneratorHolderSchema.safeParse(def)
  if (nested.success) return nested.data.generate
  return typeof def === 'function' ? (def as PrefillGenerator) : undefined
}

/**
 * Loads dynamic prefill modules. Node caches every imported URL for the life of the process, so
 * the import URL carries the file's stamp (core's `FileStamp`: device, inode, size, both times):
 * an edited or replaced module is imported afresh (each version stays in memory; edit rarely),
 * an unchanged one is imported once.
 */
export class DynamicPrefillLoader {
  readonly #modules = new Map<string, { key: string; module: Promise<unknown> }>()

  #load(path: string, st: BigIntStats): Promise<unknown> {
    const { dev, ino, size, mtimeNs, ctimeNs } = fileStamp(st)
    const key = `${dev}-${ino}-${size}-${mtimeNs}-${ctimeNs}`
    const known = this.#modules.get(path)
    if (known?.key === key) return known.module
    const url = `${pathToFileURL(path).href}?v=${encodeURIComponent(key)}`
    const module = import(/* @vite-ignore */ url)
    // A failed import is retried on the next call (the file may have been fixed in place).
    module.catch(() => {
      if (this.#modules.get(path)?.module === module) this.#modules.delete(path)
    })
    this.#modules.set(path, { key, module })
    return module
  }

  /**
   * Import the module at `path` (a regular file, `st` its stats) and run its `generate`, bounded
   * by `timeoutMs` (import included). Never throws: failures come back as `failed`.
   */
  async run(
    path: string,
    st: BigIntStats,
    input: Omit<PrefillGenerateInput, 'context'> & {
      context: Omit<PrefillGenerateContext, 'signal'>
    },
    timeoutMs: number,
    outerSignal?: AbortSignal,
  ): Promise<DynamicRun> {
    // aborted on a timeout; generate() also sees the caller's abort
    const controller = new AbortController()
    const signal = outerSignal
      ? AbortSignal.any([outerSignal, controller.signal])
      : controller.signal
    const work = (async () => {
      const mod = await this.#load(path, st)
      const generate = findGenerator(mod)
      if (!generate) {
        throw new PrefillGenerateError(`${path} does not export a generate() function`, {
          recoverable: true,
          details: { path, reason: 'no-generate' },
        })
      }
      const result = await generate({
        model: input.model,
        history: input.history,
        context: { ...input.context, signal },
      })
      const parsed = ResultSchema.safeParse(result)
      if (!parsed.success) {
        throw new PrefillGenerateError(
          `${path}: generate() returned ${typeof result}, expected a string`,
          { recoverable: true, details: { path, reason: 'not-a-string' } },
        )
      }
      return parsed.data?.trim() ?? ''
    })()
    // The race may leave `work` running after a timeout; keep its rejection from going unhandled.
    work.catch(() => undefined)
    try {
      const outcome = await within(work, timeoutMs)
      if (outcome === TIMED_OUT) {
        controller.abort(new Error('prefill generate() timed out'))
        return {
          kind: 'failed',
          error: new PrefillTimeoutError(
            `${path}: generate() did not finish within ${timeoutMs} ms; prefill is off`,
            { recoverable: true, details: { path, timeoutMs } },
          ),
        }
      }
      return { kind: 'text', text: outcome, path }
    } catch (error) {
      if (PrefillGenerateError.isInstance(error)) return { kind: 'failed', error }
      return {
        kind: 'failed',
        error: new PrefillGenerateError(
          `${path}: ${describeError(error)}; prefill is off for this call`,
          { recoverable: true, cause: error, details: { path, reason: 'threw' } },
        ),
      }
    }
  }
}
