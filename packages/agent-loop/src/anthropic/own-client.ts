import type Anthropic from '@anthropic-ai/sdk'
import { ProviderError } from '../provider/errors.js'

/** What {@link ownAnthropicClient} builds a client from. */
export interface OwnClientOptions {
  apiKey?: string | undefined
  baseURL?: string | undefined
}

/**
 * A client of `@anthropic-ai/sdk` made from `apiKey` and `baseURL` (each falling back to the
 * SDK's own defaults: `ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`, the API). The SDK, an optional
 * peer dependency, is imported only here and only when called, so the subpath loads without it.
 * Not installed: a {@link ProviderError} (`errorType: 'sdk_missing'`) that says what to install.
 */
export async function ownAnthropicClient(
  options: OwnClientOptions,
): Promise<Pick<Anthropic, 'messages'>> {
  let sdk: typeof import('@anthropic-ai/sdk')
  try {
    sdk = await import('@anthropic-ai/sdk')
  } catch (error) {
    throw new ProviderError(
      'anthropicProvider makes its client with @anthropic-ai/sdk, which cannot be loaded: install it (npm i @anthropic-ai/sdk) or pass `client`',
      { cause: error, errorType: 'sdk_missing', retryable: false },
    )
  }
  return new sdk.default({
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
  })
}
