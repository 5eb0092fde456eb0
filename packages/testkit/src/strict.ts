/**
 * The `strict` option: reject what the real API rejects but a lenient emulator would let through
 * — unknown top-level fields and unknown `anthropic-beta` values. Off by default, so clients
 * newer than this list keep working.
 */
import { badRequest, type RequestProblem } from './request-problem.js'
import { betasOf } from './threads.js'

/** Top-level fields of `POST /v1/messages` (`thread` is checked with the threads beta). */
export const MESSAGES_FIELDS: readonly string[] = [
  'model',
  'messages',
  'max_tokens',
  'system',
  'metadata',
  'stop_sequences',
  'stream',
  'temperature',
  'top_k',
  'top_p',
  'tools',
  'tool_choice',
  'thinking',
  'thread',
  'service_tier',
  'speed',
  'container',
  'context_management',
  'compaction',
  'mcp_servers',
  'output_config',
  'output_format',
  'inference_geo',
  'cache_control',
  'diagnostics',
  'billing_policy',
  'fallbacks',
  'fallback_credit_token',
]

/** Top-level fields of `POST /v1/messages/count_tokens`. */
export const COUNT_TOKENS_FIELDS: readonly string[] = [
  'model',
  'messages',
  'system',
  'tools',
  'tool_choice',
  'thinking',
  'mcp_servers',
  'context_management',
  'compaction',
  'output_config',
  'output_format',
  'cache_control',
  'speed',
  'billing_policy',
]

/** `anthropic-beta` values `@anthropic-ai/sdk` 1.12 knows; in strict mode others are a 400. */
export const KNOWN_BETAS: readonly string[] = [
  'message-batches-2024-09-24',
  'prompt-caching-2024-07-31',
  'computer-use-2024-10-22',
  'computer-use-2025-01-24',
  'computer-use-2025-11-24',
  'pdfs-2024-09-25',
  'token-counting-2024-11-01',
  'token-efficient-tools-2025-02-19',
  'output-128k-2025-02-19',
  'files-api-2025-04-14',
  'mcp-client-2025-04-04',
  'mcp-client-2025-11-20',
  'mcp-client-2026-09-15',
  'dev-full-thinking-2025-05-14',
  'interleaved-thinking-2025-05-14',
  'code-execution-2025-05-22',
  'extended-cache-ttl-2025-04-11',
  'context-1m-2025-08-07',
  'context-management-2025-06-27',
  'model-context-window-exceeded-2025-08-26',
  'skills-2025-10-02',
  'structured-outputs-2025-11-13',
  'compact-2026-01-12',
  'compact-2026-09-04',
  'fast-mode-2026-02-01',
  'advisor-tool-2026-03-01',
  'task-budgets-2026-03-13',
  'output-300k-2026-03-24',
  'user-profiles-2026-03-24',
  'user-profiles-2026-08-18',
  'user-profiles-2026-09-04',
  'managed-agents-2026-04-01',
  'cache-diagnosis-2026-04-07',
  'dreaming-2026-04-21',
  'thinking-token-count-2026-05-13',
  'server-side-fallback-2026-06-01',
  'server-side-fallback-2026-07-01',
  'fallback-credit-2026-06-01',
  'fallback-credit-2026-07-01',
  'mcp-tunnels-2026-06-22',
  'mid-conversation-tool-changes-2026-07-01',
  'mid-conversation-output-config-2026-07-01',
  'ce-user-management-2026-07-13',
  'agent-memory-2026-07-22',
  'thinking-binding-controls-2026-08-01',
  'telemetry-destinations-2026-08-11',
  'message-threads-2026-08-12',
  'thinking-display-updates-2026-08-18',
  'mid-conversation-system-clear-at-2026-08-21',
  'analytics-usage-cost-2026-08-24',
  'ce-plugins-2026-09-01',
  'inline-tools-2026-09-15',
  'spend-limit-reads-2026-09-26',
  'user-profiles-billing-2026-10-01',
  'ce-claude-code-managed-settings-2026-10-06',
  'webhooks-2026-10-07',
  'admin-user-sign-out-2026-10-08',
  'experimental-claude-tag-2026-10-21',
]

/**
 * The strict-mode problem of a request, if any: unknown `anthropic-beta` values first, then
 * unknown top-level fields of `body` (`fields` lists the known ones). `extraBetas` are accepted too.
 */
export function strictProblem(
  body: unknown,
  headers: Record<string, string>,
  fields: readonly string[],
  extraBetas: readonly string[],
): RequestProblem | undefined {
  const unknownBetas = betasOf(headers).filter(
    (b) => !KNOWN_BETAS.includes(b) && !extraBetas.includes(b),
  )
  if (unknownBetas.length > 0) {
    return badRequest(
      `Unexpected value(s) ${unknownBetas.map((b) => `\`${b}\``).join(', ')} for the \`anthropic-beta\` header. Please consult our documentation at docs.anthropic.com or try again without the header.`,
    )
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined
  const extra = Object.keys(body).find((k) => !fields.includes(k))
  return extra === undefined ? undefined : badRequest(`${extra}: Extra inputs are not permitted`)
}
