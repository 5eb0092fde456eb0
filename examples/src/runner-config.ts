import { readFile } from 'node:fs/promises'
import { parseWith, ValidationError } from '@contextkit/core'
import { type PrefillConfig, PrefillConfigSchema } from '@contextkit/prefill/node'
import * as z from 'zod'

/**
 * The runner's config file, in the shape of the design it comes from: `agents.defaults.prefill`
 * (`{ enabled, file, ephemeral }`, any prefill config field) and `agents.defaults.cacheTrace`.
 * Every level is strict: an unknown key is refused, never ignored.
 */
export const RunnerConfigSchema = z.strictObject({
  agents: z
    .strictObject({
      defaults: z
        .strictObject({
          /** The prefill middleware's config (`parsePrefillConfig`). Default: its defaults. */
          prefill: PrefillConfigSchema.optional(),
          /** Write the JSONL trace file of each session. Default `true` here. */
          cacheTrace: z.boolean().optional(),
        })
        .optional(),
    })
    .optional(),
})

/** What the runner takes from its config file. */
export interface RunnerConfig {
  /** The prefill config, defaults applied; absent when the file has none. */
  prefill?: PrefillConfig
  /** Whether each session's trace goes to a JSONL file. */
  cacheTrace: boolean
}

/** Check a parsed config file (`agents.defaults.{ prefill, cacheTrace }`) and apply defaults. */
export function parseRunnerConfig(value: unknown): RunnerConfig {
  const parsed = parseWith(RunnerConfigSchema, value, 'runner config')
  const defaults = parsed.agents?.defaults
  return {
    ...(defaults?.prefill ? { prefill: defaults.prefill } : {}),
    cacheTrace: defaults?.cacheTrace ?? true,
  }
}

/**
 * Read the runner's JSON config file (`pnpm demo --config FILE`). Throws a `ValidationError` for
 * a file that is not JSON or does not match {@link RunnerConfigSchema}; an unreadable file
 * throws the file system's error.
 */
export async function loadRunnerConfig(file: string): Promise<RunnerConfig> {
  const text = await readFile(file, 'utf8')
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    throw new ValidationError(`runner config ${file} is not JSON: ${message}`, [
      { path: '', message },
    ])
  }
  return parseRunnerConfig(value)
}
