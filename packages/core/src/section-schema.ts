import * as z from 'zod'

/** The zod schema of {@link Section}: `SectionSchema.parse(untrusted)` checks a value. */
export const SectionSchema = z.object({
  /** Stable id, used in omission notices and traces (e.g. `preload:src/app.ts`). */
  id: z.string().min(1),
  text: z.string(),
  /** Higher means more important: dropped and shortened last. */
  priority: z.number(),
  /** `stable` text can sit in a cached prompt prefix; `volatile` text changes per turn. */
  cache: z.enum(['stable', 'volatile']),
  /** Progressively shorter alternatives to `text`, longest first. */
  shorter: z.array(z.string()).optional(),
  /**
   * User sections only: whether the section is rendered before or after the user's own text in
   * the current user turn (e.g. a plan goes `before`). Default `'after'`.
   */
  placement: z.enum(['before', 'after']).optional(),
  /**
   * Never dropped by budget fitting (its `shorter` forms may still be used): the system
   * identity and safety rules. When the required sections alone are over the budget, the
   * result says so (`fits: false`) and the caller decides (the agent loop ends the run with a
   * typed error rather than send a prompt without them).
   */
  required: z.boolean().optional(),
})
/** A piece of prompt text that budget fitting may shorten or drop. */
export type Section = z.infer<typeof SectionSchema>
