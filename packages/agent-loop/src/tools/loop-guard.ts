import type { ToolCallBlock } from '@contextkit/core'
import { assertOptions } from '@contextkit/core'
import { RepeatedToolCallError } from './errors.js'

/** Options of the loop guard (`runAgent({ loopGuard })`). */
export interface LoopGuardOptions {
  /**
   * How many identical calls in a row (same tool, same input as canonical JSON) trip the guard.
   * At least 2. Default `3`.
   */
  maxRepeats?: number
  /**
   * `'stop'` (default): the tripping call is not run (it gets an error result) and the run ends
   * with `stopReason: 'loop_detected'`. `'nudge'`: the tripping call is not run, a nudge is added
   * to the tool results and the run goes on; a further identical call stops it.
   */
  action?: 'stop' | 'nudge'
  /** The nudge text, or a function of the repeated call. Default: a short instruction. */
  nudge?: string | ((call: ToolCallBlock, repeats: number) => string)
}

/** What the guard decided for one reply's calls. */
export interface LoopGuardVerdict {
  /** Calls not to run, by index, with the error result they get instead. */
  refused: Map<number, RepeatedToolCallError>
  /** End the run after this step (`loop_detected`). */
  stop: boolean
  /** Text to add to the tool results (nudge mode). */
  nudge?: string
}

/**
 * JSON with object keys sorted at every level, so `{a:1,b:2}` and `{b:2,a:1}` are the same call.
 * Values JSON cannot hold are written as JSON.stringify would (`undefined` dropped).
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v ?? null)).join(',')}]`
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
    return `{${entries.join(',')}}`
  }
  if (typeof value === 'bigint') return JSON.stringify(value.toString())
  return JSON.stringify(value) ?? 'null'
}

function defaultNudge(call: ToolCallBlock, repeats: number): string {
  return `You called ${call.name} with the same input ${repeats} times in a row; the last call was not run. Do not repeat it: change the input, use another tool, or answer with what you have.`
}

/**
 * Watches tool calls across a run and trips when the same call comes `maxRepeats` times in a row
 * (calls of one reply count in order, as consecutive). One guard per run.
 */
export class LoopGuard {
  /** How many identical calls in a row trip the guard. */
  readonly maxRepeats: number
  /** What a trip does: stop the run, or nudge the model once. */
  readonly action: 'stop' | 'nudge'
  readonly #nudge: (call: ToolCallBlock, repeats: number) => string
  #last: string | undefined
  #streak = 0
  #nudged = false

  constructor(options: LoopGuardOptions = {}) {
    assertOptions(options, 'new LoopGuard')
    this.maxRepeats = options.maxRepeats ?? 3
    this.action = options.action ?? 'stop'
    const nudge = options.nudge
    this.#nudge = typeof nudge === 'function' ? nudge : nudge ? () => nudge : defaultNudge
  }

  /** Look at one reply's calls, in order. */
  check(calls: readonly ToolCallBlock[]): LoopGuardVerdict {
    const verdict: LoopGuardVerdict = { refused: new Map(), stop: false }
    calls.forEach((call, index) => {
      const key = `${call.name}\u0000${canonicalJson(call.input)}`
      if (key === this.#last) this.#streak++
      else {
        this.#last = key
        this.#streak = 1
        this.#nudged = false
      }
      if (this.#streak < this.maxRepeats) return
      verdict.refused.set(
        index,
        new RepeatedToolCallError(
          `Not run: ${call.name} was called with this same input ${this.#streak} times in a row.`,
          { details: { tool: call.name, repeats: this.#streak } },
        ),
      )
      if (this.action === 'nudge' && !this.#nudged) {
        this.#nudged = true
        verdict.nudge = this.#nudge(call, this.#streak)
      } else {
        verdict.stop = true
      }
    })
    return verdict
  }
}
