/** The zod schema of {@link ContextMetadata} as the hint reads it (e.g. back from storage). */
import { z } from 'zod'

const strings = z.array(z.string())
const count = z.number()

/**
 * The shape `formatContextHint` needs. Unknown keys are allowed (metadata written by a newer
 * version still renders); known keys must have their types.
 */
export const ContextMetadataSchema = z.object({
  fileName: z.string().optional(),
  format: z.string(),
  chars: count,
  bytes: count.optional(),
  lines: count,
  fields: strings.optional(),
  fieldsTruncated: z.boolean().optional(),
  recordCount: count.optional(),
  sampleRecord: z.string().optional(),
  delimiter: z.string().optional(),
  hasHeader: z.boolean().optional(),
  recordArrays: z
    .array(
      z.object({
        key: z.string(),
        count,
        fields: strings.optional(),
        declaredTotal: count.optional(),
      }),
    )
    .optional(),
  valueArrays: z.array(z.object({ key: z.string(), count, elements: z.string() })).optional(),
  maps: z
    .array(
      z.object({
        key: z.string().optional(),
        entries: count,
        keyExamples: strings,
        values: z.string(),
        valueFields: strings.optional(),
      }),
    )
    .optional(),
  malformedLines: count.optional(),
  raggedRows: count.optional(),
  rootElement: z.string().optional(),
  warnings: z.array(z.object({ code: z.string(), message: z.string() })).optional(),
})
