/**
 * fast-check arbitraries shared by the packages' property tests.
 *
 * `fc.string({ unit: 'binary' })` (fast-check 4.10) builds a table of every code point the first
 * time it is used in a process: about 3 s on an idle machine and over 15 s on a loaded one,
 * paid inside the first property that uses it, which then times out. This one draws the code
 * points as integers: the same strings (any code point, lone surrogate halves included), no
 * start-up cost.
 */
import fc from 'fast-check'

/** Strings of any code points, lone surrogate halves included (like `unit: 'binary'`). */
export function anyCodePoints(
  constraints: { minLength?: number; maxLength?: number } = {},
): fc.Arbitrary<string> {
  return fc
    .array(fc.integer({ min: 0, max: 0x10ffff }), constraints)
    .map((points) => String.fromCodePoint(...points))
}
