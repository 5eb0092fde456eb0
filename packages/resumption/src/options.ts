import type { StateStore, TokenCounter } from '@contextkit/core'
import { SessionIdSchema } from '@contextkit/core/schemas'
import { StateFileOptionsSchema } from '@contextkit/store-files'
import * as z from 'zod'
import type { WakeUpRender } from './wake-up.js'

const isFunction = (v: unknown): boolean => typeof v === 'function'
const fn = <T>() => z.custom<T>(isFunction, { message: 'expected a function' })

const lazyString = z.union([z.string(), fn<() => string | undefined>()]).optional()

/** Any object with `load` and `save` functions, taken as a `StateStore`. */
export const StoreSchema = z.custom<StateStore>(
  (v) =>
    typeof v === 'object' &&
    v !== null &&
    typeof (v as { load?: unknown }).load === 'function' &&
    typeof (v as { save?: unknown }).save === 'function',
  { message: 'expected a StateStore (load and save functions)' },
)

const CounterSchema = z.custom<TokenCounter>(
  (v) =>
    typeof v === 'object' && v !== null && typeof (v as { count?: unknown }).count === 'function',
  { message: 'expected a TokenCounter' },
)

/** Zod schema of `ResumptionOptions`, checked by the `resumption()` factory. */
export const ResumptionOptionsSchema = StateFileOptionsSchema.extend({
  store: StoreSchema.optional(),
  agentId: SessionIdSchema.optional(),
  path: z.string().min(1).optional(),
  placement: z.enum(['system', 'message']).optional(),
  position: z.enum(['after-stable', 'first']).optional(),
  render: fn<WakeUpRender>().optional(),
  captureThinking: z.boolean().optional(),
  budgetTokens: z.number().nonnegative().optional(),
  tailTokens: z.number().nonnegative().optional(),
  maxAnchors: z.number().int().nonnegative().optional(),
  maxAgeMs: z.number().nonnegative().optional(),
  cwd: lazyString,
  branch: lazyString,
  counter: CounterSchema.optional(),
  sectionId: z.string().min(1).optional(),
  priority: z.number().refine(Number.isFinite, 'expected a finite number').optional(),
  capture: z.boolean().optional(),
})
