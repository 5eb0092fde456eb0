/**
 * Hand-written checks of this package's options and of {@link ContextMetadata} read back from
 * storage, in the shape core's `parseWith` takes (`safeParse`). They replace zod schemas so that
 * a bundle of `analyzeContext` carries no zod: 114.3 kB → see the README's bundle-size line.
 * `checks.test.ts` holds each check to the zod schema it replaced with a fast-check property
 * (same accept/reject answer, same data).
 */
import type { SafeParseIssue, SafeParser } from '@contextkit/core'

/** A check of one value: the problems it has (`[]` when it is fine). */
export type Rule = (value: unknown, path: readonly PropertyKey[]) => SafeParseIssue[]

const ok: SafeParseIssue[] = []

function issue(path: readonly PropertyKey[], message: string): SafeParseIssue[] {
  return [{ path, message }]
}

function received(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'number' && Number.isNaN(value)) return 'NaN'
  return typeof value
}

/** A number zod 4's `z.number()` takes: finite (no `NaN`, no `±Infinity`). */
export const finiteNumber: Rule = (v, path) =>
  typeof v === 'number' && Number.isFinite(v)
    ? ok
    : issue(path, `Invalid input: expected number, received ${received(v)}`)

/** A safe integer of at least `min` (zod 4's `z.number().int().min(min)`). */
export function integerAtLeast(min: number): Rule {
  return (v, path) => {
    if (typeof v !== 'number' || !Number.isFinite(v)) return finiteNumber(v, path)
    if (!Number.isSafeInteger(v)) return issue(path, 'Invalid input: expected int, received number')
    return v >= min ? ok : issue(path, `Too small: expected number to be >=${min}`)
  }
}

/** A string, of at least `minLength` characters (UTF-16 units, as zod counts). */
export function string(minLength = 0): Rule {
  return (v, path) => {
    if (typeof v !== 'string') {
      return issue(path, `Invalid input: expected string, received ${received(v)}`)
    }
    return v.length >= minLength
      ? ok
      : issue(path, `Too small: expected string to have >=${minLength} characters`)
  }
}

/** `true` or `false`. */
export const boolean: Rule = (v, path) =>
  typeof v === 'boolean'
    ? ok
    : issue(path, `Invalid input: expected boolean, received ${received(v)}`)

/** One of `values` (zod's `z.enum`). */
export function oneOf(values: readonly string[]): Rule {
  const wanted = values.map((v) => JSON.stringify(v)).join('|')
  return (v, path) =>
    typeof v === 'string' && values.includes(v)
      ? ok
      : issue(path, `Invalid option: expected one of ${wanted}`)
}

/** An `AbortSignal` of this realm. */
export const abortSignal: Rule = (v, path) =>
  v instanceof AbortSignal ? ok : issue(path, 'expected an AbortSignal')

/** `rule`, or `undefined`. */
export function optional(rule: Rule): Rule {
  return (v, path) => (v === undefined ? ok : rule(v, path))
}

/** `rule`, or `null`. */
export function nullable(rule: Rule): Rule {
  return (v, path) => (v === null ? ok : rule(v, path))
}

/** An array whose every element passes `rule`. */
export function arrayOf(rule: Rule): Rule {
  return (v, path) => {
    if (!Array.isArray(v))
      return issue(path, `Invalid input: expected array, received ${received(v)}`)
    const out: SafeParseIssue[] = []
    for (let i = 0; i < v.length; i++) out.push(...rule(v[i], [...path, i]))
    return out
  }
}

/**
 * An object whose keys pass their rules; with `strict`, any other enumerable key (inherited ones
 * included) is a problem (zod's `z.strictObject`), otherwise other keys are allowed (`z.object`).
 */
export function object(shape: Readonly<Record<string, Rule>>, strict: boolean): Rule {
  const keys = Object.keys(shape)
  return (v, path) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) {
      return issue(path, `Invalid input: expected object, received ${received(v)}`)
    }
    const record = v as Record<string, unknown>
    const out: SafeParseIssue[] = []
    for (const key of keys) out.push(...(shape[key] as Rule)(record[key], [...path, key]))
    if (strict) {
      // every enumerable key, inherited ones too, as zod reads them
      const extra: string[] = []
      for (const k in record) if (!Object.hasOwn(shape, k)) extra.push(k)
      if (extra.length > 0) {
        const names = extra.map((k) => `"${k}"`).join(', ')
        out.push({ path, message: `Unrecognized key${extra.length > 1 ? 's' : ''}: ${names}` })
      }
    }
    return out
  }
}

/**
 * A {@link SafeParser} of `rule`. The data of a success is the value itself: the rules neither
 * transform nor strip (a non-strict object keeps its unknown keys; callers read known keys only).
 */
export function parser<T>(rule: Rule): SafeParser<T> {
  return {
    safeParse(value: unknown) {
      const issues = rule(value, [])
      return issues.length === 0
        ? { success: true, data: value as T }
        : { success: false, error: { issues } }
    },
  }
}
