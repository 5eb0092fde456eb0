import type { AgentEvent } from '@contextkit/agent-loop'
import type { ToolCallBlock, ToolResultBlock } from '@contextkit/core'
import { createSpinner, type Spinner } from 'nanospinner'
import { type BudgetChart, renderBudgetChart } from './budget-chart.js'
import { duration, num, type Terminal } from './terminal.js'

/** Options of {@link LiveOutput}. */
export interface LiveOutputOptions {
  /**
   * Redraw a spinner line while the model thinks and tools run. Default: on a TTY. Never on a
   * stream that reports no width.
   */
  animate?: boolean
  /** The prefill of the first call, shown dimmed before the reply that continues it. */
  prefill?: string
  /**
   * A label printed (dimmed) before the text of each reply, e.g. what answered; it is the
   * demo's, not the model's, so it never reaches the session. Default: none.
   */
  replyLabel?: string
  /** Clock for elapsed times. Default `Date.now`. */
  now?: () => number
}

interface Running {
  label: string
  started: number
}

/** `read_file src/app.ts`, `list_files`, `run_js 3 lines`: a tool call in a few words. */
export function toolLabel(call: Pick<ToolCallBlock, 'name' | 'input'>): string {
  const input = call.input
  const path = typeof input.path === 'string' ? input.path : undefined
  if (path !== undefined) return `${call.name} ${path}`
  const first = Object.values(input).find((v) => typeof v === 'string') as string | undefined
  if (first === undefined) return call.name
  const flat = first.replace(/\s+/g, ' ').trim()
  return `${call.name} ${flat.length > 40 ? `${flat.slice(0, 39)}…` : flat}`
}

function resultChars(result: ToolResultBlock): number {
  return result.content.reduce((n, b) => n + (b.type === 'text' ? b.text.length : 0), 0)
}

function firstLine(result: ToolResultBlock): string {
  const text = result.content.find((b) => b.type === 'text')
  const line = text?.type === 'text' ? (text.text.split('\n')[0] ?? '') : ''
  return line.length > 100 ? `${line.slice(0, 99)}…` : line
}

/**
 * What the demo shows while a run goes: the budget chart, the reply's text as it streams, a
 * spinner line while the model is silent and while tools run (each running tool with its
 * elapsed time), one line per finished tool (✔/✖, duration, size), warnings and retries. The
 * spinner is `nanospinner`'s, drawn only on a terminal; elsewhere each finished tool is one
 * plain line.
 */
export class LiveOutput {
  readonly #term: Terminal
  readonly #animate: boolean
  readonly #now: () => number
  /** The prefill of the first call, shown dimmed before the reply that continues it. */
  prefill: string | undefined
  readonly #replyLabel: string | undefined
  readonly #running = new Map<string, Running>()
  #spinner: Spinner | undefined
  #ticker: ReturnType<typeof setInterval> | undefined
  #waitingSince: number | undefined
  #atLineStart = true
  #textInTurn = false

  constructor(term: Terminal, options: LiveOutputOptions = {}) {
    this.#term = term
    // nanospinner divides by the terminal's width to know how many lines to clear: a TTY that
    // reports no width (0, e.g. under `script` without a size) would make it loop forever
    const width = term.stream.columns ?? 0
    this.#animate = (options.animate ?? term.isTTY) && width > 0
    this.#now = options.now ?? Date.now
    this.prefill = options.prefill
    this.#replyLabel = options.replyLabel
  }

  /** Print the budget chart. */
  chart(chart: BudgetChart): void {
    this.#newline()
    for (const line of renderBudgetChart(chart, this.#term.c)) this.#term.line(line)
    this.#term.line()
  }

  /** Print one line (after ending the streamed text's line). */
  line(text = ''): void {
    this.#pause()
    this.#newline()
    this.#term.line(text)
    this.#resume()
  }

  /** Show one event of the run. */
  event(event: AgentEvent): void {
    const c = this.#term.c
    switch (event.type) {
      case 'step-start':
        this.#textInTurn = false
        if (event.phase === 'plan') this.line(c.dim('planning…'))
        this.#waitingSince = this.#now()
        this.#resume()
        return
      case 'text-delta':
      case 'thinking-delta': {
        this.#stopWaiting()
        if (!this.#textInTurn && event.type === 'text-delta') {
          if (this.#replyLabel) this.#write(`${c.dim(this.#replyLabel)} `)
          if (event.step === 1 && this.prefill) this.#write(c.dim(this.prefill))
        }
        this.#textInTurn = true
        this.#write(event.type === 'thinking-delta' ? c.dim(event.text) : event.text)
        return
      }
      case 'tool-call-start':
        this.#stopWaiting()
        return
      case 'tool-call':
        this.#stopWaiting()
        this.#running.set(event.call.id, { label: toolLabel(event.call), started: this.#now() })
        this.#resume()
        return
      case 'tool-result': {
        const running = this.#running.get(event.result.toolCallId)
        this.#running.delete(event.result.toolCallId)
        const label = running?.label ?? event.name
        const took = duration(event.durationMs)
        this.line(
          event.result.isError
            ? `  ${c.red('✖')} ${label} ${c.dim(`· ${took}`)} ${c.red(firstLine(event.result))}`
            : `  ${c.green('✔')} ${label} ${c.dim(`· ${took} · ${num(resultChars(event.result))} chars`)}`,
        )
        return
      }
      case 'warning':
        this.line(c.yellow(`! ${event.warning.code}: ${event.warning.message}`))
        return
      case 'retry':
        this.line(
          c.yellow(
            `↻ retrying call ${event.step} (${event.by ?? event.source}, attempt ${event.attempt}): ${event.error.message}`,
          ),
        )
        return
      case 'step-end':
        this.#stopWaiting()
        this.#newline()
        return
      case 'run-end':
        this.stop()
        return
      default:
        return
    }
  }

  /** Stop every spinner and end the current line. */
  stop(): void {
    this.#waitingSince = undefined
    this.#running.clear()
    this.#pause()
    this.#newline()
  }

  #write(text: string): void {
    this.#pause()
    this.#term.write(text)
    if (text.length > 0) this.#atLineStart = text.endsWith('\n')
  }

  #newline(): void {
    if (!this.#atLineStart) this.#term.write('\n')
    this.#atLineStart = true
  }

  #stopWaiting(): void {
    if (this.#waitingSince === undefined) return
    this.#waitingSince = undefined
    this.#pause()
  }

  #spinnerText(): string | undefined {
    const now = this.#now()
    if (this.#running.size > 0) {
      return [...this.#running.values()]
        .map((r) => `${r.label} ${this.#term.c.dim(duration(now - r.started))}`)
        .join(' · ')
    }
    if (this.#waitingSince !== undefined) {
      return this.#term.c.dim(`waiting for the model… ${duration(now - this.#waitingSince)}`)
    }
    return undefined
  }

  /** Draw (or update) the spinner line when something is running. */
  #resume(): void {
    if (!this.#animate) return
    const text = this.#spinnerText()
    if (text === undefined) {
      this.#pause()
      return
    }
    this.#newline()
    if (this.#spinner) {
      this.#spinner.update({ text })
      return
    }
    this.#spinner = createSpinner(text, {
      stream: this.#term.stream as NodeJS.WriteStream,
      interval: 80,
    }).start()
    this.#ticker = setInterval(() => {
      const next = this.#spinnerText()
      if (next !== undefined) this.#spinner?.update({ text: next })
    }, 100)
    this.#ticker.unref()
  }

  /** Erase the spinner line so text can be written where it was. */
  #pause(): void {
    if (!this.#spinner) return
    clearInterval(this.#ticker)
    this.#ticker = undefined
    this.#spinner.stop()
    this.#spinner = undefined
  }
}
