/** zod schemas of every options object of this package, checked where the options come in. */
import { parseWith } from '@contextkit/core'
import { z } from 'zod'
import type { AnalyzeOptions } from './types.js'

const positiveInt = z.number().int().positive()
/** Byte sizes for file reads: at least 16, so one UTF-8 character and a line break always fit. */
const byteSize = z.number().int().min(16)

/** {@link AnalyzeOptions}. Unknown keys are refused. */
export const AnalyzeOptionsSchema = z.strictObject({
  sniffChars: positiveInt.optional(),
  maxSampleRecords: positiveInt.optional(),
  maxFields: positiveInt.optional(),
  sampleChars: positiveInt.optional(),
})

/** The file-only part of `AnalyzeFileOptions`. */
export const FileReadOptionsSchema = z.strictObject({
  fileName: z.string().optional(),
  sniffBytes: byteSize.optional(),
  chunkBytes: byteSize.optional(),
  signal: z
    .custom<AbortSignal>((v) => v instanceof AbortSignal, { message: 'expected an AbortSignal' })
    .optional(),
})

/** `AnalyzeFileOptions`: the analysis options and the file-only ones, unknown keys refused. */
export const AnalyzeFileOptionsSchema = FileReadOptionsSchema.extend(AnalyzeOptionsSchema.shape)

/** `HintOptions`. */
export const HintOptionsSchema = z.strictObject({
  contextRef: z.string().nullable().optional(),
  style: z.enum(['auto', 'block', 'inline', 'brief']).optional(),
  maxFields: positiveInt.optional(),
  maxFieldChars: positiveInt.optional(),
  sampleChars: positiveInt.optional(),
  maxNameChars: positiveInt.optional(),
})

/** `ContextMetadataOptions` (the middleware factory's options). */
export const ContextMetadataOptionsSchema = z.strictObject({
  file: z.string().min(1).optional(),
  content: z.string().optional(),
  fileName: z.string().optional(),
  contextVar: z.string().min(1).optional(),
  metaVar: z.string().min(1).optional(),
  sectionId: z.string().min(1).optional(),
  priority: z.number().finite().optional(),
  cache: z.enum(['stable', 'volatile']).optional(),
  hint: HintOptionsSchema.omit({ style: true }).optional(),
  analyze: AnalyzeOptionsSchema.extend({
    sniffBytes: byteSize.optional(),
    chunkBytes: byteSize.optional(),
  }).optional(),
})

/** Defaults of {@link AnalyzeOptions}. */
export const ANALYZE_DEFAULTS = {
  sniffChars: 65536,
  maxSampleRecords: 100,
  maxFields: 100,
  sampleChars: 200,
} as const

/** Resolved, checked analysis options. */
export interface ResolvedAnalyzeOptions {
  sniffChars: number
  maxSampleRecords: number
  maxFields: number
  sampleChars: number
}

/**
 * Check analysis options (a `ValidationError` for bad values; `null`/`undefined` mean the
 * defaults) and fill in the defaults.
 */
export function resolveAnalyzeOptions(
  options: unknown,
  schema: z.ZodType<AnalyzeOptions> = AnalyzeOptionsSchema,
): ResolvedAnalyzeOptions {
  const o = parseWith(schema, options ?? {}, 'context-metadata analyze options')
  return {
    sniffChars: o.sniffChars ?? ANALYZE_DEFAULTS.sniffChars,
    maxSampleRecords: o.maxSampleRecords ?? ANALYZE_DEFAULTS.maxSampleRecords,
    maxFields: o.maxFields ?? ANALYZE_DEFAULTS.maxFields,
    sampleChars: o.sampleChars ?? ANALYZE_DEFAULTS.sampleChars,
  }
}

export type { AnalyzeOptions }
