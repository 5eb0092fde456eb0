import type { Message } from '@contextkit/core'
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

/**
 * Stop sequences `\n{Name}:` for the most recent speakers other than the assistant, newest
 * first, de-duplicated, at most `max`. Falls back to `userName` when nobody else spoke.
 */
export function participantStops(
  speakers: readonly string[],
  assistantName: string,
  userName: string,
  max: number,
): string[] {
  const seen = new Set<string>()
  for (let i = speakers.length - 1; i >= 0 && seen.size < max; i--) {
    const name = speakers[i]!
    if (name !== assistantName) seen.add(name)
  }
  if (seen.size === 0 && max > 0 && userName !== assistantName) seen.add(userName)
  return [...seen].map((name) => `\n${name}:`)
}

/** Append `extra` to `base`, dropping duplicates and empty strings, keeping first occurrences. */
export function mergeStops(base: readonly string[], extra: readonly string[] = []): string[] {
  return [...new Set([...base, ...extra].filter((s) => s !== ''))]
}
