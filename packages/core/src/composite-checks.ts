// The checks made of other checks (optional, array, object, union, …) and the ones that change
// how a check is built (`lazy`, `withFastPath`): the second half of `@contextkit/core/check`,
// beside the scalar checks and the types in value-checks.ts.
import {
  assertObject,
  assertOptions,
  assertString,
  invalidArgument,
  unknownKeyMessage,
} from './errors.js'
import {
  assertCheck,
  build,
  type Check,
  either,
  type Infer,
  kindOf,
  type ObjectCheck,
  type ObjectOf,
  type OptionalCheck,
  refuse,
  type Shape,
  type Test,
} from './value-checks.js'

/** `check`, or `undefined` (in an object: the key may be left out). */
export function optional<T>(check: Check<T>): OptionalCheck<T> {
  assertCheck(check, 'optional', 'check')
  const kinds = new Set(check.kinds).add('undefined')
  const inner = build<T | undefined>(check.expected, kinds, (value, path, issues) =>
    value === undefined ? true : check.test(value, path, issues),
  )
  return { ...inner, optional: true }
}

/** `check`, `null` or `undefined` (in an object: the key may be left out). */
export function nullish<T>(check: Check<T>): OptionalCheck<T | null> {
  assertCheck(check, 'nullish', 'check')
  const kinds = new Set(check.kinds).add('undefined').add('null')
  const inner = build<T | null | undefined>(check.expected, kinds, (value, path, issues) =>
    value === undefined || value === null ? true : check.test(value, path, issues),
  )
  return { ...inner, optional: true }
}

/** An array whose every item passes `item`. */
export function array<T>(item: Check<T>): Check<T[]> {
  assertCheck(item, 'array', 'item')
  const expected = 'an array'
  return build<T[]>(expected, new Set(['array']), (value, path, issues) => {
    if (!Array.isArray(value)) return refuse(expected, value, path, issues)
    let ok = true
    for (let i = 0; i < value.length; i++) {
      if (item.test(value[i], issues ? [...(path ?? []), i] : undefined, issues)) continue
      ok = false
      if (!issues) return false
    }
    return ok
  })
}

/** Whether `value` is an object whose prototype is `Object.prototype` or `null` (zod's record). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const proto: unknown = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/**
 * A plain object (see {@link isPlainObject}) whose every own value passes `item`, and every own
 * key `key` when given (`record(item, string({ min: 1 }))`: no empty key).
 */
export function record<T>(item: Check<T>, key?: Check<string>): Check<Record<string, T>> {
  assertCheck(item, 'record', 'item')
  if (key !== undefined) assertCheck(key, 'record', 'key')
  const expected = 'an object'
  return build<Record<string, T>>(expected, new Set(['object']), (value, path, issues) => {
    if (!isPlainObject(value)) return refuse(expected, value, path, issues)
    let ok = true
    for (const k of Object.keys(value)) {
      const at = issues ? [...(path ?? []), k] : undefined
      if ((!key || key.test(k, at, issues)) && item.test(value[k], at, issues)) continue
      ok = false
      if (!issues) return false
    }
    return ok
  })
}

/** Options of {@link strictObject}. */
export interface StrictOptions {
  /**
   * Names other libraries use for one of the keys, mapped to ours: the issue for an unknown key
   * `systemPrompt` mapped to `system` says "`systemPrompt` is `system` here".
   */
  renamed?: Readonly<Record<string, string>>
}

function objectCheck<S extends Shape>(
  fn: string,
  shape: S,
  strict: StrictOptions | undefined,
): ObjectCheck<S> {
  assertObject(shape, fn, 'shape')
  const keys = Object.keys(shape)
  for (const key of keys) assertCheck(shape[key], fn, `shape.${key}`)
  if (strict !== undefined) {
    assertOptions(strict, fn, 'options', { known: ['renamed'] })
    if (strict.renamed !== undefined) assertObject(strict.renamed, fn, 'options.renamed')
  }
  const known = new Set(keys)
  const renamed = strict?.renamed ?? {}
  const expected = 'an object'
  const test: Test = (value, path, issues) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return refuse(expected, value, path, issues)
    const obj = value as Record<string, unknown>
    let ok = true
    for (const key of keys) {
      if (shape[key]!.test(obj[key], issues ? [...(path ?? []), key] : undefined, issues)) continue
      ok = false
      if (!issues) return false
    }
    if (strict) {
      for (const key in obj) {
        if (known.has(key) || !Object.hasOwn(obj, key)) continue
        ok = false
        if (!issues) return false
        issues.push({
          path: [...(path ?? []), key],
          message: unknownKeyMessage(key, keys, renamed),
        })
      }
    }
    return ok
  }
  return { ...build<ObjectOf<S>>(expected, new Set(['object']), test), shape }
}

/** An object with the keys of `shape` (other keys are let through, as zod's `object` does). */
export function object<const S extends Shape>(shape: S): ObjectCheck<S> {
  return objectCheck('object', shape, undefined)
}

/**
 * An object with the keys of `shape` and no other own key: an unknown key is an issue naming it,
 * and the key we use instead when `options.renamed` has it or it differs only in case, `_` or
 * `-` (core's `assertOptions` words it the same way).
 */
export function strictObject<const S extends Shape>(
  shape: S,
  options: StrictOptions = {},
): ObjectCheck<S> {
  return objectCheck('strictObject', shape, options ?? {})
}

/**
 * Any of `checks` (the first that passes). When none does, the issues are those of the one
 * branch that takes a value of this kind (a string given to `string | ModelInfo` is reported by
 * the string check, an object by the `ModelInfo` check), or one issue naming every branch.
 */
export function union<const C extends readonly Check<unknown>[]>(
  ...checks: C
): Check<Infer<C[number]>> {
  for (const [at, check] of checks.entries()) assertCheck(check, 'union', `checks[${at}]`)
  const expected = either(checks.map((c) => c.expected))
  const kinds = new Set(checks.flatMap((c) => [...c.kinds]))
  return build<Infer<C[number]>>(expected, kinds, (value, path, issues) => {
    for (const c of checks) if (c.test(value)) return true
    if (!issues) return false
    const kind = kindOf(value)
    const takers = checks.filter((c) => c.kinds.has(kind))
    if (takers.length === 1) return takers[0]!.test(value, path, issues)
    return refuse(expected, value, path, issues)
  })
}

/**
 * An object told apart by the value of `key`: `variants('type', { text: TextCheck, … })` checks
 * a `{ type: 'text', … }` with `TextCheck`, and an unknown `type` is one issue at that key.
 */
export function variants<
  const K extends string,
  const V extends Readonly<Record<string, Check<unknown>>>,
>(key: K, checks: V): Check<Infer<V[keyof V]>> {
  assertString(key, 'variants', 'key')
  assertObject(checks, 'variants', 'checks')
  const names = Object.keys(checks)
  for (const name of names) assertCheck(checks[name], 'variants', `checks.${name}`)
  const tags = either(names.map((n) => JSON.stringify(n)))
  const expected = `an object whose ${key} is ${tags}`
  return build<Infer<V[keyof V]>>(expected, new Set(['object']), (value, path, issues) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return refuse('an object', value, path, issues)
    const tag: unknown = (value as Record<string, unknown>)[key]
    const check = typeof tag === 'string' && Object.hasOwn(checks, tag) ? checks[tag] : undefined
    if (check) return check.test(value, path, issues)
    return refuse(tags, tag, [...(path ?? []), key], issues)
  })
}

/**
 * `check`, then `rule` on what passed it: `rule` returns the problems it finds (each with its
 * path below the value, `[]` for the value itself), none when the value is good. For what the
 * shape cannot say: two fields that must agree, a depth limit.
 */
export function refine<T>(
  check: Check<T>,
  rule: (value: T) => ReadonlyArray<{ path: readonly PropertyKey[]; message: string }>,
): Check<T> {
  assertCheck(check, 'refine', 'check')
  if (typeof rule !== 'function') invalidArgument('refine', 'rule', 'a function', rule)
  return build<T>(check.expected, check.kinds, (value, path, issues) => {
    if (!check.test(value, path, issues)) return false
    const problems = rule(value as T)
    if (problems.length === 0) return true
    for (const p of problems)
      issues?.push({ path: [...(path ?? []), ...p.path], message: p.message })
    return false
  })
}

/**
 * `check` with a faster test for the common case: `accepts` must accept exactly what `check`
 * does (a property test holds each pair together); `check` then only words the issues. Internal:
 * the list checks of messages and sections use it, so that a good history of thousands of
 * messages is checked at the cost of core's hand-tuned input checks.
 */
export function withFastPath<T>(
  check: Check<T>,
  accepts: (value: unknown) => value is T,
): Check<T> {
  return {
    ...check,
    is: accepts,
    test: (value, path, issues) => accepts(value) || check.test(value, path, issues),
    safeParse: (value) =>
      accepts(value) ? { success: true, data: value } : check.safeParse(value),
  }
}

/**
 * A check built on its first use: `make` runs once, when the check is first asked anything (a
 * test, its `expected`, its `shape`), and the check then answers as the one it made. So the checks
 * a module defines at its top level cost nothing at import: a cold `import()` of a package spends
 * no time building checks its caller may never use.
 */
export function lazy<C extends Check<unknown>>(make: () => C): C {
  if (typeof make !== 'function') invalidArgument('lazy', 'make', 'a function', make)
  let made: C | undefined
  const check = (): C => {
    made ??= make()
    return made
  }
  return new Proxy({} as C, {
    get: (_, key) => Reflect.get(check(), key),
    has: (_, key) => Reflect.has(check(), key),
    ownKeys: () => Reflect.ownKeys(check()),
    getOwnPropertyDescriptor: (_, key) => {
      const d = Reflect.getOwnPropertyDescriptor(check(), key)
      return d && { ...d, configurable: true }
    },
  })
}
