/** The check of {@link ContextMetadata} as the hint reads it (e.g. back from storage). */
import type { SafeParser } from '@contextkit/core'
import { arrayOf, boolean, finiteNumber, object, optional, parser, string } from './checks.js'
import type { ContextMetadata } from './types.js'

const strings = arrayOf(string())
const count = finiteNumber

/**
 * The shape `formatContextHint` needs. Unknown keys are allowed (metadata written by a newer
 * version still renders); known keys must have their types.
 */
export const ContextMetadataSchema: SafeParser<ContextMetadata> = parser(
  object(
    {
      fileName: optional(string()),
      format: string(),
      contentFormat: optional(string()),
      textKind: optional(string()),
      chars: count,
      bytes: optional(count),
      lines: count,
      fields: optional(strings),
      fieldsTruncated: optional(boolean),
      recordCount: optional(count),
      sampleRecord: optional(string()),
      delimiter: optional(string()),
      hasHeader: optional(boolean),
      recordArrays: optional(
        arrayOf(
          object(
            {
              key: string(),
              count,
              fields: optional(strings),
              declaredTotal: optional(count),
            },
            false,
          ),
        ),
      ),
      valueArrays: optional(arrayOf(object({ key: string(), count, elements: string() }, false))),
      maps: optional(
        arrayOf(
          object(
            {
              key: optional(string()),
              entries: count,
              keyExamples: strings,
              values: string(),
              valueFields: optional(strings),
            },
            false,
          ),
        ),
      ),
      malformedLines: optional(count),
      raggedRows: optional(count),
      rootElement: optional(string()),
      warnings: optional(arrayOf(object({ code: string(), message: string() }, false))),
    },
    false,
  ),
)
