import {
  type ContextWindowSource,
  contextWindowSource,
  getModelInfo,
  type ModelInfo,
  type TurnContext,
} from '@contextkit/core'

/** A context window in force for a model, and where it came from. */
export interface WindowInForce {
  /** The window, in tokens. */
  tokens: number
  /** `table`, `option`, `models-api`, or `learned` from the server (core `ContextWindowSource`). */
  source: ContextWindowSource
}

/** A window a server stated for a model, as a session records it. */
export interface LearnedWindow {
  /** The model id the window is for. */
  model: string
  /** The window the server stated, in tokens. */
  window: number
}

/**
 * Where the window of `model` came from: `option` when the caller's own `ModelInfo` states a
 * window other than the registry's for its id, else what the registry says (core
 * `contextWindowSource`: `table`, `option` or `models-api`).
 */
export function windowSourceOf(model: ModelInfo): ContextWindowSource {
  const registered = getModelInfo(model.id)
  if (registered.contextWindow !== model.contextWindow) return 'option'
  return contextWindowSource(model.id)
}

/** How a window reads in a message: `20000-token context window (learned from the server)`. */
export function describeWindow(window: WindowInForce): string {
  const from =
    window.source === 'learned'
      ? 'learned from the server'
      : window.source === 'models-api'
        ? 'from the Models API'
        : window.source === 'option'
          ? 'as given'
          : "from contextkit's model table"
  return `${window.tokens}-token context window (${from})`
}

/**
 * The context windows of one run's models: each model's own (`ModelInfo.contextWindow`), unless
 * a server stated a smaller one for it (in an overflow refusal during this run, or in an earlier
 * run of the session): that one is in force for the rest of the run. Every model call reads its
 * model through {@link RunWindows.model}, so fitting, compaction, the composition trace and the
 * errors all use the same window.
 */
export class RunWindows {
  readonly #learned = new Map<string, number>()
  /** Where each model's own window came from, looked up once per run (a registry lookup parses). */
  readonly #sources = new WeakMap<ModelInfo, ContextWindowSource>()
  /** Learned in this run, not yet written to the session. */
  readonly #unsaved = new Map<string, number>()

  /** Windows learned earlier (a session's records); the smallest per model wins. */
  constructor(learned: Iterable<LearnedWindow> = []) {
    for (const { model, window } of learned) this.#remember(model, window)
  }

  #remember(model: string, window: number): boolean {
    const known = this.#learned.get(model)
    if (known !== undefined && known <= window) return false
    this.#learned.set(model, window)
    return true
  }

  /** The window in force for `model`, and where it came from. */
  of(model: ModelInfo): WindowInForce {
    const learned = this.#learned.get(model.id)
    // `<=`: a model that already carries the learned window (a call's own) is still `learned`
    if (learned !== undefined && learned <= model.contextWindow)
      return { tokens: learned, source: 'learned' }
    let source = this.#sources.get(model)
    if (source === undefined) {
      source = windowSourceOf(model)
      this.#sources.set(model, source)
    }
    return { tokens: model.contextWindow, source }
  }

  /** `model` with the window in force (the same object when it is its own). */
  model(model: ModelInfo): ModelInfo {
    const learned = this.#learned.get(model.id)
    if (learned === undefined || learned >= model.contextWindow) return model
    return { ...model, contextWindow: learned }
  }

  /** `turn` with its model's window in force (the same object when nothing changes). */
  turn(turn: TurnContext): TurnContext {
    const model = this.model(turn.model)
    return model === turn.model ? turn : { ...turn, model }
  }

  /**
   * A window a server stated for `model` (in an overflow refusal). Taken when it is smaller than
   * the window in force; returns the window it replaced then, else `undefined`.
   */
  learn(model: ModelInfo, window: number): WindowInForce | undefined {
    const before = this.of(model)
    if (!(window < before.tokens) || !this.#remember(model.id, window)) return undefined
    this.#unsaved.set(model.id, window)
    return before
  }

  /** The windows learned in this run and not yet taken by {@link RunWindows.takeUnsaved}. */
  takeUnsaved(): LearnedWindow[] {
    const out = [...this.#unsaved].map(([model, window]) => ({ model, window }))
    this.#unsaved.clear()
    return out
  }

  /** Every learned window (earlier runs' and this run's), one per model. */
  learned(): LearnedWindow[] {
    return [...this.#learned].map(([model, window]) => ({ model, window }))
  }
}
