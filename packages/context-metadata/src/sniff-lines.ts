/**
 * Line-shape detection on a bounded prefix: YAML, source code and logfmt logs. These decide
 * what text is *not* (never CSV, never markdown) as much as what it is.
 */

/** Lines that count: not blank. */
function contentLines(lines: readonly string[], max = 400): string[] {
  const out: string[] = []
  for (const line of lines) {
    if (out.length >= max) break
    if (line.trim() !== '') out.push(line.length > 2048 ? line.slice(0, 2048) : line)
  }
  return out
}

const CODE_START =
  /^\s*(import|export|from|const|let|var|function|def|class|return|if|elif|else|for|while|try|except|catch|finally|async|await|switch|case|interface|type|enum|package|public|private|protected|static|struct|fn|impl|use|mod|namespace|using|#include|#define|echo|fi|done|then|do|esac|local|set|unset|cd|sudo|exit|shift|source|declare|readonly|trap|with|raise|yield|lambda|pass|print|assert|del|global|func|go|defer|begin|end|module|require)\b/
const CODE_END = /(;|\{|\}|\(|=>|\)\s*:|\b(do|then|else)|\\)\s*$/
const CODE_INSIDE = /(=>|===|!==|==|&&|\|\||::|->|\+=|-=|:=|\$\(|\$\{|\bfunction\s*\(|^\s*@\w+)/

/** `true` for one line of source code (JS/TS, Python, shell, C-like, …). */
export function isCodeLine(line: string): boolean {
  const t = line.trimEnd()
  if (t.startsWith('#!')) return true
  if (/^\s*(\/\/|\/\*|\*\/|\* )/.test(t)) return true
  return CODE_START.test(t) || CODE_END.test(t) || CODE_INSIDE.test(t)
}

/**
 * Source code: a shebang, or at least 3 content lines of which 30% look like code. Comment-only
 * lines (`#`, `//`) are left out of the ratio so a commented script still counts.
 */
export function looksLikeCode(lines: readonly string[]): boolean {
  if (lines[0]?.startsWith('#!')) return true
  const content = contentLines(lines).filter((l) => !/^\s*(#|\/\/)/.test(l))
  if (content.length < 3) return false
  let code = 0
  for (const line of content) if (isCodeLine(line)) code++
  return code >= 0.3 * content.length
}

const LOGFMT_PAIR = /(?:^|\s)[A-Za-z_][\w.-]*=(?:"(?:[^"\\]|\\.)*"|[^\s"]*)/g

/** logfmt logs (`level=info msg="a, b" at=12:00`): most lines hold two or more `key=value` pairs. */
export function looksLikeLogfmt(lines: readonly string[]): boolean {
  const content = contentLines(lines, 200)
  if (content.length === 0) return false
  let hits = 0
  for (const line of content) {
    const pairs = line.match(LOGFMT_PAIR)
    if (pairs && pairs.length >= 2) hits++
  }
  return hits >= 0.6 * content.length
}

/** `key:` / `key: value` at any indentation (also after `- `), with a plain or quoted key. */
const YAML_MAPPING =
  /^\s*(?:-\s+)?(?!(?:class|def|if|elif|else|try|except|finally|for|while|with|case|default)\b)(?:"[^"]*"|'[^']*'|[A-Za-z0-9_$./][\w$./-]*(?:[ ][\w$./-]+){0,2})\s*:(?:\s|$)/
const YAML_LIST = /^\s*-(?:\s|$)/
const YAML_MARKER = /^(---|\.\.\.)(\s|$)/
const BLOCK_SCALAR = /:\s*[|>][-+0-9]*\s*(#.*)?$/

/**
 * YAML: at least 2 mapping lines, and every content line (comments, `---` markers and the body of
 * `|`/`>` block scalars aside) a mapping line, a list item, or a continuation of one (a line
 * indented deeper than the mapping line above it, e.g. a long flow sequence). One line in 20
 * may be anything else.
 */
export function looksLikeYaml(lines: readonly string[]): boolean {
  let mappings = 0
  let other = 0
  let content = 0
  let blockIndent = -1
  let lastIndent = -1
  for (const raw of contentLines(lines)) {
    const indent = raw.length - raw.trimStart().length
    if (blockIndent >= 0) {
      if (indent > blockIndent) continue
      blockIndent = -1
    }
    const t = raw.trim()
    if (t.startsWith('#') || YAML_MARKER.test(t)) continue
    content++
    if (YAML_MAPPING.test(raw) && !/[;{]\s*$/.test(t)) {
      mappings++
      lastIndent = indent
      if (BLOCK_SCALAR.test(raw)) blockIndent = indent
    } else if (YAML_LIST.test(raw)) {
      lastIndent = indent
    } else if (lastIndent >= 0 && indent > lastIndent) {
      // continuation of a plain or flow value
    } else other++
  }
  return mappings >= 2 && other * 20 <= content
}
