/**
 * The `capabilities` object of `GET /v1/models`, as the emulator can back it up: thinking per the
 * model's thinking mode (and enforced on `POST /v1/messages`), image and PDF input accepted, and
 * everything the emulator does not emulate reported as unsupported.
 */

/**
 * How a model thinks: `none`, `extended` (`thinking.type: 'enabled'` with `budget_tokens`),
 * `adaptive` (the model decides; `enabled` and `disabled` are accepted too), `adaptive-always`
 * (thinking cannot be turned off, so no prefill either). The same values as core's `ThinkingMode`.
 */
export type EmulatorThinkingMode = 'none' | 'extended' | 'adaptive' | 'adaptive-always'

/** Every {@link EmulatorThinkingMode}. */
export const EMULATOR_THINKING_MODES: readonly EmulatorThinkingMode[] = [
  'none',
  'extended',
  'adaptive',
  'adaptive-always',
]

/** The `thinking.type` values a request may send. */
export const THINKING_TYPES = ['adaptive', 'between_tools', 'disabled', 'enabled'] as const

/** One of {@link THINKING_TYPES}. */
export type ThinkingType = (typeof THINKING_TYPES)[number]

/** Which `thinking.type` values a model of `mode` accepts (the others are a 400). */
export function acceptedThinkingTypes(mode: EmulatorThinkingMode): Record<ThinkingType, boolean> {
  return {
    adaptive: mode === 'adaptive' || mode === 'adaptive-always',
    between_tools: false,
    disabled: mode !== 'adaptive-always',
    enabled: mode === 'extended' || mode === 'adaptive',
  }
}

const support = (supported: boolean) => ({ supported })

/** The `capabilities` object for a model of `mode`, with every key the API always sends. */
export function capabilitiesWire(mode: EmulatorThinkingMode): Record<string, unknown> {
  const types = acceptedThinkingTypes(mode)
  return {
    batch: support(false),
    citations: support(false),
    code_execution: support(false),
    context_management: {
      supported: false,
      clear_thinking_20251015: null,
      clear_tool_uses_20250919: null,
      compact_20260112: null,
    },
    effort: {
      supported: false,
      low: support(false),
      medium: support(false),
      high: support(false),
      max: support(false),
      xhigh: null,
    },
    image_input: support(true),
    pdf_input: support(true),
    server_tools: {
      supported: false,
      code_execution: support(false),
      web_search: support(false),
    },
    structured_outputs: support(false),
    thinking: {
      supported: mode !== 'none',
      types: {
        adaptive: support(types.adaptive),
        between_tools: support(types.between_tools),
        disabled: support(types.disabled),
        enabled: support(types.enabled),
      },
    },
  }
}
