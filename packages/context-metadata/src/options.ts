/**
 * The checks of every options object of this package, run where the options come in. They are
 * hand-written (see checks.ts), not zod, so `analyzeContext` bundles without zod.
 */
import { parseWith, type SafeParser } from '@contextkit/core'
import type { AnalyzeFileOptions } from './analyze-file.js'
import {
  abortSignal,
  finiteNumber,
  integerAtLeast,
  nullable,
  object,
  oneOf,
  optional,
  parser,
  type Rule,
  string,
} from './checks.js'
import type { HintOptions } from './hint.js'
import type { ContextMetadataOptions } from './middleware.js'
import type { AnalyzeOptions } from './types.js'

const positiveInt = optional(integerAtLeast(1))
/** Byte sizes for file reads: at least 16, so one UTF-8 character and a line break always fit. */
const byteSize = optional(integerAtLeast(16))

const analyzeShape: Record<string, Rule> = {
  sniffChars: positiveInt,
  maxSampleRecords: positiveInt,
  maxFields: positiveInt,
  sampleChars: positiveInt,
}

/** {@link AnalyzeOptions}. Unknown keys are refused. */
export const AnalyzeOptionsSchema: SafeParser<AnalyzeOptions> = parser(object(analyzeShape, true))

const fileReadShape: Record<string, Rule> = {
  fileName: optional(string()),
  sniffBytes: byteSize,
  chunkBytes: byteSize,
  signal: optional(abortSignal),
}

/** The file-only part of `AnalyzeFileOptions`. */
export const FileReadOptionsSchema: SafeParser<Omit<AnalyzeFileOptions, keyof AnalyzeOptions>> =
  parser(object(fileReadShape, true))

/** `AnalyzeFileOptions`: the analysis options and the file-only ones, unknown keys refused. */
export const AnalyzeFileOptionsSchema: SafeParser<AnalyzeFileOptions> = parser(
  object({ ...fileReadShape, ...analyzeShape }, true),
)

const hintShape: Record<string, Rule> = {
  contextRef: optional(nullable(string())),
  maxFields: positiveInt,
  maxFieldChars: positiveInt,
  sampleChars: positiveInt,
  maxNameChars: positiveInt,
}

/** `HintOptions`. */
export const HintOptionsSchema: SafeParser<HintOptions> = parser(
  object({ ...hintShape, style: optional(oneOf(['auto', 'block', 'inline', 'brief'])) }, true),
)

const nonEmpty = optional(string(1))

/** `ContextMetadataOptions` (the middleware factory's options). */
export const ContextMetadataOptionsSchema: SafeParser<ContextMetadataOptions> = parser(
  object(
    {
      file: nonEmpty,
      content: optional(string()),
      fileName: optional(string()),
      contextVar: nonEmpty,
      metaVar: nonEmpty,
      sectionId: nonEmpty,
      priority: optional(finiteNumber),
      cache: optional(oneOf(['stable', 'volatile'])),
      hint: optional(object(hintShape, true)),
      analyze: optional(
        object({ ...analyzeShape, sniffBytes: byteSize, chunkBytes: byteSize }, true),
      ),
    },
    true,
  ),
)

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
  schema: SafeParser<AnalyzeOptions> = AnalyzeOptionsSchema,
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
