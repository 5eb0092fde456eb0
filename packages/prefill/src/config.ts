import { inspectRelativePath, parseWith } from '@contextkit/core'
import * as z from 'zod'

/** What to do when the model cannot take an assistant prefill on this call. */
export const OnUnsupportedSchema = z.enum(['instruct', 'skip', 'error'])
/**
 * - `'instruct'`: move the prefill into the last user turn as an instruction that the reply must
 *   begin with that text, and strip it from the reply as usual;
 * - `'skip'`: send nothing for this call;
 * - `'error'`: throw a `PrefillRejectedError`.
 */
export type OnUnsupported = z.infer<typeof OnUnsupportedSchema>

/** A file path inside the workspace on every OS's rules (core's `inspectRelativePath`), naming a file. */
function isInsideRelative(file: string): boolean {
  return inspectRelativePath(file).ok && !file.endsWith('/')
}

/** Schema of the prefill configuration (all fields optional; defaults below). */
export const PrefillConfigSchema = z.strictObject({
  /** Turn the feature on or off. Default `true`. */
  enabled: z.boolean().default(true),
  /**
   * The prefill file, relative to the workspace and inside it. Default `'PREFILL.md'`. Its stem
   * also names the per-model file (`PREFILL.opus.md`) and the dynamic modules (`PREFILL.mjs`,
   * `PREFILL.js`). A file ending in `.mjs` or `.js` is a dynamic module itself.
   */
  file: z
    .string()
    .refine(isInsideRelative, 'must be a relative file path inside the workspace')
    .default('PREFILL.md'),
  /**
   * `true`: the prefill is sent but never saved — `finalize` strips it from the reply. `false`:
   * the saved reply keeps it (`finalize` makes sure the reply begins with it). Default `true`.
   */
  ephemeral: z.boolean().default(true),
  /**
   * Which model calls of a run open with the prefill. `'first'`: the first step only (the reply
   * to the user's message); later steps continue from tool results on the model's own terms.
   * `'every'`: every step, tool-result continuations included, as the design this package comes
   * from does (it injects on each API call). Default `'first'`.
   */
  steps: z.enum(['first', 'every']).default('first'),
  /** See {@link OnUnsupported}. Default `'instruct'`. */
  onUnsupported: OnUnsupportedSchema.default('instruct'),
  /** Look for a per-model file (`PREFILL.<family>.md`) before the base file. Default `true`. */
  perModel: z.boolean().default(true),
  /**
   * Load a dynamic prefill module (`PREFILL.mjs`, then `PREFILL.js`) when one exists; it wins over
   * the Markdown files. It runs in-process with your privileges: turn this off when the agent can
   * write to its own workspace. Default `true`.
   */
  dynamic: z.boolean().default(true),
  /** How long a dynamic module's `generate` may take, in ms. Default `1000`. */
  timeoutMs: z.number().int().positive().max(600_000).default(1000),
  /** Largest prefill accepted, in bytes: a file, or the text a dynamic module returns. Default `65536`. */
  maxBytes: z.number().int().positive().max(16_777_216).default(65_536),
})

/** Prefill configuration as written by a user (every field optional). */
export type PrefillConfigInput = z.input<typeof PrefillConfigSchema>
/** Prefill configuration with defaults applied. */
export type PrefillConfig = z.output<typeof PrefillConfigSchema>

/**
 * Validate a prefill configuration (e.g. `agents.defaults.prefill` from a JSON file) and apply
 * defaults. Throws a `ValidationError` naming each bad field; unknown keys are errors too.
 */
export function parsePrefillConfig(input: unknown = {}): PrefillConfig {
  return parseWith(PrefillConfigSchema, input ?? {}, 'prefill config')
}
