import type Anthropic from '@anthropic-ai/sdk'
import {
  ModelRegistry,
  parseWith,
  type RefreshModelsResult,
  refreshModels as registerModels,
  ValidationError,
} from '@contextkit/core'
import * as z from 'zod'
import { toProviderError } from './provider-errors.js'

/** A client that can list models (`client.models.list()`). */
export type ModelsClient = Pick<Anthropic, 'models'>

/** Options of {@link refreshModels}. */
export interface AnthropicRefreshModelsOptions {
  /** The registry to update. Default: the process-wide one behind core's `getModelInfo`. */
  registry?: ModelRegistry
  /** Models per page asked for (the API's `limit`, 1–1000). Default `1000`. */
  pageSize?: number
  /** Stops the listing. */
  signal?: AbortSignal
  /** Pages read at most (a guard against a server that never stops paging). Default `100`. */
  maxPages?: number
}

/** What {@link refreshModels} did: core's result, plus how many pages were read. */
export interface AnthropicRefreshModelsResult extends RefreshModelsResult {
  /** How many pages of the Models API were read. */
  pages: number
}

function isModelsClient(value: unknown): value is ModelsClient {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { models?: { list?: unknown } }).models?.list === 'function'
  )
}

const OptionsSchema = z.strictObject({
  registry: z
    .custom<ModelRegistry>((v) => ModelRegistry.isInstance(v), 'expected a ModelRegistry')
    .optional(),
  pageSize: z.number().int().min(1).max(1000).optional(),
  signal: z.instanceof(AbortSignal).optional(),
  maxPages: z.number().int().positive().optional(),
})

/**
 * List every model the API serves (`GET /v1/models`, all pages, through the client's
 * `models.list`) and register what it says with core's `refreshModels`: `max_input_tokens` as
 * the context window, `max_tokens` as the output limit, `capabilities.thinking` as the thinking
 * mode. A new model is then `known` to `getModelInfo` (and so to budgets, prefill and the
 * formatters) without waiting for a release; the static table stays the offline default.
 *
 * Also accepts one object: `refreshModels({ client, registry })`. A failing request rejects with
 * a typed `ProviderError` (status, error type, request id); bad options with a `ValidationError`.
 */
export async function refreshModels(
  client: ModelsClient | ({ client: ModelsClient } & AnthropicRefreshModelsOptions),
  options: AnthropicRefreshModelsOptions = {},
): Promise<AnthropicRefreshModelsResult> {
  let source: ModelsClient
  let opts = options
  if (isModelsClient(client)) source = client
  else if (isModelsClient((client as { client?: unknown } | null)?.client)) {
    const { client: inner, ...rest } = client as {
      client: ModelsClient
    } & AnthropicRefreshModelsOptions
    source = inner
    opts = { ...rest, ...options }
  } else {
    throw new ValidationError(
      'Invalid refreshModels arguments: expected an Anthropic client (with models.list)',
      [{ path: 'client', message: 'expected an Anthropic client (with models.list)' }],
    )
  }
  parseWith(OptionsSchema, opts, 'refreshModels options')
  const maxPages = opts.maxPages ?? 100
  const pages: { data: unknown[] }[] = []
  try {
    let page = await source.models.list(
      { limit: opts.pageSize ?? 1000 },
      opts.signal ? { signal: opts.signal } : undefined,
    )
    pages.push({ data: page.data })
    while (page.hasNextPage() && pages.length < maxPages) {
      page = await page.getNextPage()
      pages.push({ data: page.data })
    }
  } catch (error) {
    throw toProviderError(error, { midStream: false })
  }
  const result = registerModels(pages, opts.registry ? { registry: opts.registry } : {})
  return { ...result, pages: pages.length }
}
