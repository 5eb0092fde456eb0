import { invalidArgument } from '@contextkit/core'
import { Counting } from './analysis.js'
import { detect } from './detect.js'
import { resolveAnalyzeOptions } from './options.js'
import type { AnalyzeOptions, ContextMetadata } from './types.js'

/**
 * Describe a context string: its format, size, line count, and for structured data the record
 * count, field names and a sample record.
 *
 * Detection reads only the first `sniffChars` characters (default 65536); lines and records are
 * counted over the whole string with `indexOf` jumps and native regular-expression runs
 * (quote-aware for CSV, depth-tracking for JSON). Never throws for any string and file name; bad `options` values and a non-string
 * `content` throw a `ValidationError`.
 *
 * @param content - the context text.
 * @param fileName - the file name it came from, if any: a known extension decides the format
 *   (what the content reads as is kept in `contentFormat`).
 * @param options - sniffing limits; see {@link AnalyzeOptions} for defaults.
 */
export function analyzeContext(
  content: string,
  fileName?: string,
  options?: AnalyzeOptions,
): ContextMetadata {
  if (typeof content !== 'string') {
    invalidArgument('analyzeContext', 'content', 'a string', content)
  }
  const name = typeof fileName === 'string' ? fileName : undefined
  const opts = resolveAnalyzeOptions(options)
  const complete = content.length <= opts.sniffChars
  const prefix = complete ? content : content.slice(0, opts.sniffChars)
  const counting = new Counting(detect(prefix, complete, name, opts), opts)
  counting.push(content)
  return counting.finish(name)
}
