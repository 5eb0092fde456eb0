import type { ModelInfo } from '@contextkit/core'
import { describeWindow } from '../budget/context-window.js'
import { AGENT_LOOP_WARNINGS } from '../events/warnings.js'
import { ContextTooLongError, type ProviderError } from '../provider/errors.js'
import type { CallContext } from './call-types.js'

/**
 * When `error` is an overflow refusal that states the server's window, and that window is smaller
 * than the one in force for `model`, the run takes it (`ctx.windows`) for every later call and
 * says so in a warning (`agent_loop_context_window_learned`); the default tool-result limit
 * follows it; the session records it when the run next saves. Anything else is left alone.
 */
export function learnWindow(ctx: CallContext, error: ProviderError, model: ModelInfo): void {
  if (!ContextTooLongError.isInstance(error)) return
  const stated = (error as ContextTooLongError).window
  if (stated === undefined) return
  const before = ctx.windows.learn(model, stated)
  if (before === undefined) return
  ctx.clip?.followWindow(stated)
  const held = (error as ContextTooLongError).requestTokens
  ctx.warn({
    code: AGENT_LOOP_WARNINGS.contextWindowLearned,
    message: `The server of model ${model.id} refused a request${held === undefined ? '' : ` of ${held} tokens`} over its ${stated}-token context window, smaller than the ${describeWindow(before)}: the run uses ${stated} tokens from now on, and the session records it`,
    source: 'loop',
  })
}
