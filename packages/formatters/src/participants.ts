import { ConfigurationError, type Message } from '@contextkit/core'
import { InvalidParticipantError } from './errors.js'

/** Throw {@link InvalidParticipantError} unless `name` can be rendered as `Name:`. */
export function checkParticipantName(name: string, where: string): string {
  if (name === '' || /[:\r\n]/.test(name) || name.trim() !== name) {
    throw new InvalidParticipantError(
      `Participant name ${JSON.stringify(name)} (${where}) must be non-empty, without ':' or line breaks, and without surrounding spaces`,
      { details: { name, where } },
    )
  }
  return name
}

/** The speaker of a message: its `participant`, else the default name for its role. */
export function speakerOf(message: Message, assistantName: string, userName: string): string {
  return message.participant ?? (message.role === 'assistant' ? assistantName : userName)
}

/** How a speaker's name is written before their text: a `{name}` template, split once. */
export interface NameLabel {
  /** The label of `name`, as written before the text (trailing whitespace included). */
  of(name: string): string
  /** The label without its trailing whitespace: how an open turn ends, and what stops match. */
  head(name: string): string
  /** The label's trailing whitespace (between the name part and the text). */
  readonly gap: string
}

/**
 * Check a `{name}` label format (`participantFormat`, `nameFormat`): `{name}` exactly once,
 * no leading whitespace, and no line break before its trailing whitespace (a stop sequence is
 * a line break and the label's head). `ConfigurationError` otherwise.
 */
export function nameLabel(format: unknown, option: string): NameLabel {
  const parts = typeof format === 'string' ? format.split('{name}') : []
  const head = typeof format === 'string' ? format.trimEnd() : ''
  if (parts.length !== 2 || /^\s/.test(head) || /[\r\n]/.test(head))
    throw new ConfigurationError(
      `${option} must be a string with {name} exactly once, no leading whitespace and no line break before its trailing whitespace, got ${JSON.stringify(format)}`,
    )
  const [before, after] = parts as [string, string]
  const afterHead = after.trimEnd()
  return {
    of: (name) => before + name + after,
    head: (name) => before + name + afterHead,
    gap: after.slice(afterHead.length),
  }
}

/** The label format the transcripts use when none is given: `Name:`. */
export const COLON_LABEL: NameLabel = nameLabel('{name}:', 'participantFormat')

/**
 * Stop sequences `\n{Name}:` (`\n` and the label's head) for the most recent speakers other than
 * the assistant, newest first, de-duplicated, at most `max`. Falls back to `userName` when
 * nobody else spoke.
 */
export function participantStops(
  speakers: readonly string[],
  assistantName: string,
  userName: string,
  max: number,
  label: NameLabel = COLON_LABEL,
): string[] {
  const seen = new Set<string>()
  for (let i = speakers.length - 1; i >= 0 && seen.size < max; i--) {
    const name = speakers[i]!
    if (name !== assistantName) seen.add(name)
  }
  if (seen.size === 0 && max > 0 && userName !== assistantName) seen.add(userName)
  return [...seen].map((name) => `\n${label.head(name)}`)
}

/** Append `extra` to `base`, dropping duplicates and empty strings, keeping first occurrences. */
export function mergeStops(base: readonly string[], extra: readonly string[] = []): string[] {
  return [...new Set([...base, ...extra].filter((s) => s !== ''))]
}
