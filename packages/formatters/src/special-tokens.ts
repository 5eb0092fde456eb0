import { assertArray, assertString } from '@contextkit/core'
import { SpecialTokenError } from './errors.js'

/** What to do with text that contains a special-token string. */
export type SpecialTokenPolicy = 'reject' | 'escape'

/** Zero-width space put after the first character of a special token when escaping. */
export const TOKEN_ESCAPE = '\u200b'

/**
 * Guard text against special-token strings: `'reject'` throws {@link SpecialTokenError};
 * `'escape'` inserts U+200B after the token's first character (`<\u200b|im_end|>`), so the text
 * reads the same but can no longer tokenize as the special token.
 */
export function guardSpecialTokens(
  text: string,
  tokens: readonly string[],
  policy: SpecialTokenPolicy,
  where: string,
): string {
  assertString(text, 'guardSpecialTokens', 'text')
  assertArray(tokens, 'guardSpecialTokens', 'tokens')
  assertString(where, 'guardSpecialTokens', 'where')
  let out = text
  for (const token of tokens) {
    if (token === '' || !out.includes(token)) continue
    if (policy === 'reject') {
      throw new SpecialTokenError(
        `${where} contains the special token ${JSON.stringify(token)}; set specialTokens: 'escape' to escape it`,
        { details: { token, where } },
      )
    }
    out = out.replaceAll(token, token.slice(0, 1) + TOKEN_ESCAPE + token.slice(1))
  }
  return out
}
