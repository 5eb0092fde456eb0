/**
 * Vitest setup file of every project: runs each fast-check property with the seed of this test
 * run, so a failure can be replayed. The root `vitest.config.ts` draws a fresh seed per run (or
 * takes `FC_SEED` from the environment), prints it once and hands it to every worker through
 * `FC_SEED`; fast-check's failure report names the same seed. Replay a failure with
 * `FC_SEED=<seed> pnpm vitest run <file>`.
 */
import fc from 'fast-check'

/** The seed in `FC_SEED`, or `undefined` when unset; anything but a 32-bit integer is an error. */
export function seedFromEnv(): number | undefined {
  return parseSeed(process.env.FC_SEED)
}

/** A seed written as text, or `undefined` for none; anything but a 32-bit integer is an error. */
export function parseSeed(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined
  const seed = Number(value)
  if (!Number.isInteger(seed) || seed < -(2 ** 31) || seed >= 2 ** 32) {
    throw new Error(`FC_SEED must be a 32-bit integer, got ${JSON.stringify(value)}`)
  }
  return seed
}

const seed = seedFromEnv()
if (seed !== undefined) fc.configureGlobal({ ...fc.readConfigureGlobal(), seed })
