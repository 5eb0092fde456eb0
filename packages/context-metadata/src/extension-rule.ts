/**
 * The extension rule: a known extension names the format; what the content reads as is kept
 * beside it (`contentFormat`), and a contradiction is a warning, never a silent switch.
 */
import type { ContextFormat, ContextWarning, TextKind } from './types.js'

/** What the name and the content together make of a context. */
export interface Reconciled {
  /** The format reported (`ContextMetadata.format`). */
  format: ContextFormat
  /** What the content alone reads as, when it differs from `format`. */
  contentFormat?: ContextFormat
  /** Plain text and markdown: prose, or structured data / code in a text file. */
  textKind?: TextKind
  /** The warning a contradiction records. */
  warning?: ContextWarning
}

const NAMES: Record<ContextFormat, string> = {
  ndjson: 'NDJSON',
  json: 'JSON',
  'json-array': 'a JSON array',
  csv: 'CSV',
  tsv: 'TSV',
  'plain-text': 'plain text',
  markdown: 'markdown',
  yaml: 'YAML',
  xml: 'XML',
  html: 'HTML',
  unknown: 'an unknown format',
}

/** Formats of one family: the name's member is kept and the content says nothing against it. */
const FAMILIES: ReadonlyArray<ReadonlySet<ContextFormat>> = [
  new Set<ContextFormat>(['csv', 'tsv']),
  new Set<ContextFormat>(['xml', 'html']),
]

const PROSE: ReadonlySet<ContextFormat> = new Set<ContextFormat>(['plain-text', 'markdown'])

function textKindOf(content: ContextFormat, codeLike: boolean): TextKind {
  return PROSE.has(content) && !codeLike ? 'prose' : 'structured'
}

/**
 * Decide the reported format from the name's format (`named`, from a known extension) and the
 * content's (`content`, from sniffing and counting). Rules, in order:
 *
 * - no known extension, or content that cannot be read at all (`unknown`: empty, misdecoded,
 *   malformed under a JSON name): the content's format;
 * - `.json` content that is a JSON array: `json-array` (the same family, more precise);
 * - a `.txt`/`.md` name holds anything: its format, the content's in `contentFormat`, and
 *   `textKind` says prose or structured (no warning);
 * - CSV/TSV and XML/HTML are families: the name's member, silently (the delimiter and the root
 *   element say the rest);
 * - YAML holds JSON (JSON is YAML): `yaml`, the content's in `contentFormat`, no warning;
 * - a JSON name on content that is not JSON at all: `unknown` with a `malformed` warning;
 * - anything else: the name's format, the content's in `contentFormat`, and a `mismatch`
 *   warning.
 */
export function reconcileWithName(
  named: ContextFormat | undefined,
  content: ContextFormat,
  codeLike: boolean,
): Reconciled {
  if (named === undefined || content === 'unknown' || named === content) {
    return PROSE.has(content)
      ? { format: content, textKind: textKindOf(content, codeLike) }
      : { format: content }
  }
  if (named === 'json' && content === 'json-array') return { format: content }
  if (PROSE.has(named)) {
    return { format: named, contentFormat: content, textKind: textKindOf(content, codeLike) }
  }
  if (FAMILIES.some((family) => family.has(named) && family.has(content))) return { format: named }
  if (named === 'yaml' && (content === 'json' || content === 'json-array')) {
    return { format: named, contentFormat: content }
  }
  if (named === 'json' || named === 'ndjson') {
    const jsonLike = content === 'json' || content === 'json-array' || content === 'ndjson'
    if (!jsonLike) {
      return {
        format: 'unknown',
        contentFormat: content,
        warning: {
          code: 'malformed',
          message: `The name says ${NAMES[named]}, but the content is not JSON (it reads as ${NAMES[content]}).`,
        },
      }
    }
  }
  return {
    format: named,
    contentFormat: content,
    warning: {
      code: 'mismatch',
      message: `The name says ${NAMES[named]}, but the content reads as ${NAMES[content]}${parseAdvice(named, content)}.`,
    },
  }
}

function parseAdvice(named: ContextFormat, content: ContextFormat): string {
  if (named === 'json' && content === 'ndjson') {
    return ': one JSON value per line, so parse it line by line (JSON.parse of the whole text fails)'
  }
  return ''
}
