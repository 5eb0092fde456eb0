// `@contextkit/core/check`: structural checks in the manner of zod, without zod, for the code on a
// package's import path (its options, the values it is handed): what they check reports every
// bad path through `parseWith`, and the type comes from the check (`Infer`). zod's module load
// is most of a cold `import()`, so the roots of core, formatters and agent-loop check with these
// and leave zod to the code that validates with it (`@contextkit/core/schemas`). Pure like the
// root. The rule is in docs/architecture.md ("exports").

export type { StrictOptions } from './composite-checks.js'
export {
  array,
  isPlainObject,
  lazy,
  nullish,
  object,
  optional,
  record,
  refine,
  strictObject,
  union,
  variants,
} from './composite-checks.js'
export type {
  Check,
  Flatten,
  Infer,
  LiteralValue,
  NumberLimits,
  ObjectCheck,
  ObjectOf,
  OptionalCheck,
  Shape,
  StringLimits,
  ValueKind,
} from './value-checks.js'
export {
  boolean,
  custom,
  kindOf,
  literal,
  number,
  string,
  unknown,
} from './value-checks.js'
