/**
 * The pinned pnpm (the root `package.json`'s `packageManager`), found once through npx and then
 * run directly (`scripts/pinned-pnpm.mjs`, shared with the release dry run): the package tests
 * run pnpm some twenty times, and each `npx` start costs about 1.5 s of CPU on top of pnpm's own.
 */
export { pinnedPnpm } from '../../scripts/pinned-pnpm.mjs'

/** `word` quoted for `sh` (a path with spaces, say). */
export function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`
}
