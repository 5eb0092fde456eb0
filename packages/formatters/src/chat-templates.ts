/**
 * Chat templates of model families, as data: how `ChatMLFormatter` writes turns for each preset.
 * Each preset reproduces the family's published Jinja chat template for text conversations
 * (tests render those templates and compare strings).
 */

/** The opening and closing text of one role's turn. */
export interface TurnTokens {
  /** Text written before the turn's content, e.g. `<|im_start|>user\n`. */
  open: string
  /** Text written after the turn's content, e.g. `<|im_end|>\n`. */
  close: string
}

/** How one model family writes a conversation into a prompt. */
export interface ChatTemplate {
  /** Written once at the start of the prompt (the BOS text), e.g. `<|begin_of_text|>`. */
  begin: string
  /**
   * The system turn, or `undefined` for families without a system role: then the system text
   * (and tool definitions) start the first turn, followed by a blank line (as Gemma 3 does).
   */
  system?: TurnTokens
  /** The user turn. */
  user: TurnTokens
  /** The assistant turn; a prefilled reply continues after its `open`. */
  assistant: TurnTokens
  /** Trim whitespace around each turn's content, like the template's `| trim`. */
  trim: boolean
  /**
   * The template requires user and assistant turns to alternate: consecutive messages of one
   * role are merged into one turn, separated by a blank line.
   */
  alternate: boolean
  /** Stop sequences the family needs (end of turn, end of text). */
  stopSequences: readonly string[]
  /** Special-token texts guarded in everything written into the prompt. */
  specialTokens: readonly string[]
}

/** Names of the built-in presets. */
export type ChatTemplatePreset = 'chatml' | 'llama3' | 'mistral' | 'gemma'

/**
 * The built-in presets:
 * - `chatml`: ChatML (`<|im_start|>role\n…<|im_end|>\n`): Qwen 2/2.5/3, Hermes, Yi, many fine-tunes.
 * - `llama3`: Llama 3, 3.1, 3.2, 3.3 Instruct (`<|start_header_id|>role<|end_header_id|>\n\n…<|eot_id|>`).
 * - `mistral`: Mistral 7B Instruct v0.2 and Mixtral 8x7B Instruct (`<s>[INST] … [/INST]…</s>`).
 * - `gemma`: Gemma 2 and 3 instruction-tuned (`<start_of_turn>user\n…<end_of_turn>\n`, role
 *   `model` for the assistant, no system role).
 */
export const CHAT_TEMPLATES: Readonly<Record<ChatTemplatePreset, ChatTemplate>> = {
  chatml: {
    begin: '',
    system: { open: '<|im_start|>system\n', close: '<|im_end|>\n' },
    user: { open: '<|im_start|>user\n', close: '<|im_end|>\n' },
    assistant: { open: '<|im_start|>assistant\n', close: '<|im_end|>\n' },
    trim: false,
    alternate: false,
    stopSequences: ['<|im_end|>', '<|endoftext|>'],
    specialTokens: ['<|im_start|>', '<|im_end|>', '<|endoftext|>'],
  },
  llama3: {
    begin: '<|begin_of_text|>',
    system: { open: '<|start_header_id|>system<|end_header_id|>\n\n', close: '<|eot_id|>' },
    user: { open: '<|start_header_id|>user<|end_header_id|>\n\n', close: '<|eot_id|>' },
    assistant: { open: '<|start_header_id|>assistant<|end_header_id|>\n\n', close: '<|eot_id|>' },
    trim: true,
    alternate: false,
    stopSequences: ['<|eot_id|>', '<|end_of_text|>'],
    specialTokens: [
      '<|begin_of_text|>',
      '<|end_of_text|>',
      '<|start_header_id|>',
      '<|end_header_id|>',
      '<|eot_id|>',
      '<|eom_id|>',
      '<|python_tag|>',
    ],
  },
  mistral: {
    begin: '<s>',
    user: { open: '[INST] ', close: ' [/INST]' },
    assistant: { open: '', close: '</s>' },
    trim: false,
    alternate: true,
    stopSequences: ['</s>', '[INST]'],
    specialTokens: ['<s>', '</s>', '[INST]', '[/INST]'],
  },
  gemma: {
    begin: '<bos>',
    user: { open: '<start_of_turn>user\n', close: '<end_of_turn>\n' },
    assistant: { open: '<start_of_turn>model\n', close: '<end_of_turn>\n' },
    trim: true,
    alternate: true,
    stopSequences: ['<end_of_turn>', '<eos>'],
    specialTokens: ['<bos>', '<eos>', '<start_of_turn>', '<end_of_turn>', '<pad>'],
  },
}

/** Whether `name` is a built-in preset. */
export function isChatTemplatePreset(name: unknown): name is ChatTemplatePreset {
  return typeof name === 'string' && Object.hasOwn(CHAT_TEMPLATES, name)
}
