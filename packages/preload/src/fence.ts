import { assertString, invalidArgument } from '@contextkit/core'

const LANGUAGES: Readonly<Record<string, string>> = Object.freeze({
  '.py': 'python',
  '.pyi': 'python',
  '.js': 'javascript',
  '.mjs': 'javascript',
  '.cjs': 'javascript',
  '.jsx': 'jsx',
  '.ts': 'typescript',
  '.mts': 'typescript',
  '.cts': 'typescript',
  '.tsx': 'tsx',
  '.css': 'css',
  '.scss': 'scss',
  '.less': 'less',
  '.html': 'html',
  '.htm': 'html',
  '.vue': 'vue',
  '.svelte': 'svelte',
  '.json': 'json',
  '.jsonl': 'json',
  '.yaml': 'yaml',
  '.yml': 'yaml',
  '.toml': 'toml',
  '.xml': 'xml',
  '.svg': 'xml',
  '.md': 'markdown',
  '.mdx': 'mdx',
  '.sh': 'bash',
  '.bash': 'bash',
  '.zsh': 'zsh',
  '.sql': 'sql',
  '.go': 'go',
  '.rs': 'rust',
  '.java': 'java',
  '.kt': 'kotlin',
  '.swift': 'swift',
  '.c': 'c',
  '.h': 'c',
  '.cc': 'cpp',
  '.cpp': 'cpp',
  '.hpp': 'cpp',
  '.cs': 'csharp',
  '.rb': 'ruby',
  '.php': 'php',
  '.lua': 'lua',
  '.graphql': 'graphql',
  '.proto': 'protobuf',
  '.ini': 'ini',
  '.txt': 'text',
})

const SPECIAL_NAMES: Readonly<Record<string, string>> = Object.freeze({
  dockerfile: 'dockerfile',
  makefile: 'makefile',
})

/**
 * The Markdown fence language tag for a path, from its extension (case-insensitive), or `''`
 * when unknown. `Dockerfile` and `Makefile` are recognized by name.
 */
export function languageFor(filePath: string): string {
  assertString(filePath, 'languageFor', 'filePath')
  const name = filePath.slice(filePath.lastIndexOf('/') + 1).toLowerCase()
  const special = SPECIAL_NAMES[name]
  if (special) return special
  const dot = name.lastIndexOf('.')
  if (dot <= 0) return ''
  return LANGUAGES[name.slice(dot)] ?? ''
}

/**
 * Length of the longest run of `char` (a single UTF-16 unit) in `text`.
 *
 * @throws ValidationError when `text` is not a string, or `char` is not exactly one UTF-16 unit
 *   (`''` would match everywhere and never advance; `'bc'` is not a character).
 */
export function longestRun(text: string, char: string): number {
  assertString(text, 'longestRun', 'text')
  if (typeof char !== 'string' || char.length !== 1) {
    invalidArgument('longestRun', 'char', 'a single character (one UTF-16 unit)', char)
  }
  let best = 0
  let at = text.indexOf(char)
  while (at !== -1) {
    let end = at + 1
    while (end < text.length && text[end] === char) end++
    if (end - at > best) best = end - at
    at = text.indexOf(char, end)
  }
  return best
}

/**
 * Wrap `text` in a Markdown code fence tagged `language`. The fence is made of backticks and
 * is longer than any backtick run in `text` (at least 3), so the content can never close it.
 */
export function fenceCode(text: string, language = ''): string {
  assertString(text, 'fenceCode', 'text')
  assertString(language, 'fenceCode', 'language')
  const fence = '`'.repeat(Math.max(3, longestRun(text, '`') + 1))
  const body = text.endsWith('\n') || text.length === 0 ? text : `${text}\n`
  return `${fence}${language}\n${body}${fence}`
}

/** Inline code span for `text` that survives backticks inside it. */
export function inlineCode(text: string): string {
  assertString(text, 'inlineCode', 'text')
  const ticks = '`'.repeat(longestRun(text, '`') + 1)
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : ''
  return `${ticks}${pad}${text}${pad}${ticks}`
}
