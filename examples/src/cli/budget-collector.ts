import { AGENT_TRACE_STAGES } from '@contextkit/agent-loop'
import { createTokenCounter, type Trace, type TurnContext } from '@contextkit/core'
import { PREFILL_TRACE_STAGES } from '@contextkit/prefill/node'
import { RESUMPTION_TRACE_STAGES } from '@contextkit/resumption/node'
import { MIDDLEWARE_STAGES } from '../turn-steps.js'
import { type BudgetChart, type BudgetEvent, buildBudgetChart } from './budget-chart.js'

/** Where the collector keeps resumption's prepare-time event (injected or skipped). */
const RESUMPTION_KEY = 'resumption'

/**
 * Gathers what the budget chart needs while a run starts — the prepared turn (give
 * {@link onPrepared} to the runner) and the trace events of session loading, preload, prefill and
 * resumption (give {@link trace} to the runner) — and calls `onChart` once, when the loop records
 * the budget of its first model call, which is before that call is sent.
 */
export class BudgetChartCollector {
  readonly #maxTokens: number
  readonly #onChart: (chart: BudgetChart) => void
  #turn: TurnContext | undefined
  #events = new Map<string, Record<string, unknown>>()
  #done = false

  /** Give this to the runner's `trace` option. Recording never throws. */
  readonly trace: Trace

  constructor(options: { maxTokens: number; onChart: (chart: BudgetChart) => void }) {
    this.#maxTokens = options.maxTokens
    this.#onChart = options.onChart
    this.trace = {
      record: (stage, data = {}) => {
        try {
          this.#record(stage, data)
        } catch {
          // a chart that cannot be drawn never stops the run
        }
      },
    }
  }

  /** Give this to the runner's `onPrepared` option. */
  readonly onPrepared = (turn: TurnContext): void => {
    this.#turn = turn
  }

  /** The prefill the first call sends as the start of the reply, once known. */
  get nativePrefill(): string | undefined {
    const e = this.#events.get(PREFILL_TRACE_STAGES.injected)
    return e?.mode === 'native' && typeof e.prefill === 'string' ? e.prefill : undefined
  }

  #record(stage: string, data: Record<string, unknown>): void {
    if (stage === RESUMPTION_TRACE_STAGES.injected || stage === RESUMPTION_TRACE_STAGES.skipped) {
      // inject/skip happen in prepare; capture comes at the end
      this.#events.set(RESUMPTION_KEY, data)
      return
    }
    if (stage !== AGENT_TRACE_STAGES.budget) {
      if (!this.#events.has(stage)) this.#events.set(stage, data)
      return
    }
    if (this.#done || !this.#turn) return
    this.#done = true
    const session = this.#events.get(AGENT_TRACE_STAGES.sessionLoaded)
    const turn = this.#turn
    this.#onChart(
      buildBudgetChart({
        turn,
        event: data as unknown as BudgetEvent,
        maxTokens: Math.min(this.#maxTokens, turn.model.maxOutput),
        counter: createTokenCounter({ model: turn.model }),
        session: session
          ? { messages: Number(session.messages), kept: Number(session.kept) }
          : undefined,
        preload: this.#events.get(MIDDLEWARE_STAGES.preload),
        prefill:
          this.#events.get(PREFILL_TRACE_STAGES.injected) ??
          this.#events.get(PREFILL_TRACE_STAGES.skipped),
        resumption: this.#events.get(RESUMPTION_KEY),
      }),
    )
  }
}
