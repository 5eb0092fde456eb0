import type { ModelProvider } from '@contextkit/agent-loop'
import type { FormatterChoice } from '../embedded-runner.js'
import type { DemoProviderKind } from './args.js'

/** A provider for `--base-url` and the format the runner pairs it with. */
export interface LocalServerBackend {
  provider: ModelProvider
  formatter: FormatterChoice
  /** What the headline calls the server's API. */
  api: string
}

/**
 * The provider for `--base-url`, loaded only when a server is asked for: with `--provider openai`
 * agent-loop's `openAIChatProvider` (`{baseURL}/chat/completions`, native tools, the
 * `NativeFormatter`; `apiKey` sent when given), else `openAICompatibleCompletionsProvider`
 * (`{baseURL}/completions`) with `ChatMLFormatter`, whose prompt string and stop sequences it sends.
 */
export async function localServerProvider(
  baseURL: string,
  model: string,
  kind: DemoProviderKind = 'completions',
  apiKey?: string,
): Promise<LocalServerBackend> {
  if (kind === 'openai') {
    const { openAIChatProvider } = await import('@contextkit/agent-loop/openai')
    const provider = openAIChatProvider({ baseURL, model, ...(apiKey ? { apiKey } : {}) })
    return { provider, formatter: 'native', api: 'chat completions' }
  }
  const { openAICompatibleCompletionsProvider } = await import('@contextkit/agent-loop/completions')
  const provider = openAICompatibleCompletionsProvider({ baseURL, model })
  return { provider, formatter: 'chatml', api: 'completions' }
}
