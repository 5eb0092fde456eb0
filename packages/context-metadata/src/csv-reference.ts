/**
 * The CSV counting rules read one character at a time, as an oracle for tests only (not
 * exported from the package): `src/csv-record-counter.test.ts` and the JIT regression child
 * check the streaming `CsvRecordCounter` against it.
 */

/** What a {@link referenceCsvCount} finds. */
export interface ReferenceCsvCount {
  records: number
  ragged: number
}

/**
 * The CSV counting rules read one character at a time over the whole text: the oracle the
 * streaming `CsvRecordCounter` (regular-expression runs and `indexOf` jumps) is checked
 * against. A `"` opens a quoted field only right after the delimiter, a line break or at the
 * start; inside, `""` is a quote and line breaks belong to the field. A record ends at `\n` or
 * `\r` outside quotes and counts when it holds a delimiter, a quote or a visible character (not
 * a BOM); it is ragged when, after the first `skip` records, its delimiters + 1 ≠ `expected`.
 */
export function referenceCsvCount(
  text: string,
  delimiter: string,
  expected = 0,
  skip = 0,
): ReferenceCsvCount {
  const delim = delimiter.charCodeAt(0)
  let records = 0
  let ragged = 0
  let fields = 1
  let content = false
  let inQuotes = false
  const end = (): void => {
    if (content || fields > 1) {
      if (expected > 0 && records >= skip && fields !== expected) ragged++
      records++
    }
    fields = 1
    content = false
  }
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inQuotes) {
      if (c === 34) {
        if (text.charCodeAt(i + 1) === 34) i++
        else inQuotes = false
      }
    } else if (c === delim) fields++
    else if (c === 10 || c === 13) end()
    else if (c === 34) {
      content = true
      const before = i === 0 ? 10 : text.charCodeAt(i - 1)
      if (before === delim || before === 10 || before === 13) inQuotes = true
    } else if (c > 32 && c !== 0xfeff) content = true
  }
  end()
  return { records, ragged }
}
