/**
 * The `code` of a Node.js system error (`ENOENT`, `EEXIST`, `EACCES`, …), or `undefined` when
 * `error` carries no string `code`. Pure (it reads one property and imports nothing from Node), so
 * every package that touches the file system classifies failures the same way.
 */
export function errnoCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined
  const code = (error as { code?: unknown }).code
  return typeof code === 'string' ? code : undefined
}
