import type { ModelProvider } from '@contextkit/agent-loop'

/**
 * The provider for `--base-url`: agent-loop's `openAICompatibleCompletionsProvider` (plain
 * `fetch` to `{baseURL}/completions`), loaded only when a local server is asked for. The runner
 * pairs it with `ChatMLFormatter`, whose prompt string and stop sequences it sends.
 */
export async function localServerProvider(baseURL: string, model: string): Promise<ModelProvider> {
  const { openAICompatibleCompletionsProvider } = await import('@contextkit/agent-loop/completions')
  return openAICompatibleCompletionsProvider({ baseURL, model })
}
