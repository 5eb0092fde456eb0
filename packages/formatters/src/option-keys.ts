import { assertOptions, type OptionKeys } from '@contextkit/core'

// The keys every options object of this package may have. An unknown key is refused (core's
// `assertOptions`, a `ValidationError`), never ignored: an option under another library's name
// (the design document's `systemPrompt`) would otherwise drop its value without a word.

/** Where the design document's build options are set here (it passes them per request). */
const SEED_BUILD_NAMES: Readonly<Record<string, string>> = {
  systemPrompt: 'system',
  assistantParticipant: 'assistantName',
  humanParticipant: 'userName',
  additionalStopSequences: 'stopSequences',
  participantMode: 'new NativeFormatter({ participantMode })',
  participantFormat: 'new AnthropicXmlFormatter({ participantFormat })',
  nameFormat: 'new NativeFormatter({ nameFormat })',
  toolMode: 'new AnthropicXmlFormatter({ toolMode })',
  maxParticipantsForStop: 'new AnthropicXmlFormatter({ maxParticipantsForStop })',
  unsupportedMedia: 'new AnthropicXmlFormatter({ unsupportedMedia })',
  warnOnStrip: 'new AnthropicXmlFormatter({ warnOnStrip })',
  warnOnImageStrip: 'new AnthropicXmlFormatter({ warnOnStrip })',
}

/** Build options given to a constructor: where they go instead. */
const PER_REQUEST: Readonly<Record<string, string>> = {
  systemPrompt: 'buildMessages(messages, { system })',
  system: 'buildMessages(messages, { system })',
  assistantParticipant: 'buildMessages(messages, { assistantName })',
  humanParticipant: 'buildMessages(messages, { userName })',
  assistantName: 'buildMessages(messages, { assistantName })',
  userName: 'buildMessages(messages, { userName })',
  tools: 'buildMessages(messages, { tools })',
  thinking: 'buildMessages(messages, { thinking })',
  prefill: 'buildMessages(messages, { prefill })',
  promptCaching: 'buildMessages(messages, { promptCaching })',
  warnOnImageStrip: 'warnOnStrip',
}

const keys = (known: readonly string[], renamed: Record<string, string> = {}): OptionKeys => ({
  known: new Set(known),
  renamed: { ...PER_REQUEST, ...renamed },
})

const BUILD_KEYS: OptionKeys = {
  known: new Set([
    'assistantName',
    'userName',
    'system',
    'tools',
    'thinking',
    'prefill',
    'stopSequences',
    'userSections',
    'model',
    'contextPrefix',
    'cacheContextPrefix',
    'hasCacheMarker',
    'promptCaching',
    'cacheTtl',
  ]),
  renamed: SEED_BUILD_NAMES,
}

const MEDIA = ['unsupportedMedia', 'warnOnStrip']

/** The keys of each options object, by the function that takes it. */
const KEYS = {
  'new AnthropicXmlFormatter': keys(
    [
      'toolMode',
      'participantFormat',
      ...MEDIA,
      'maxParticipantsForStop',
      'messageSeparator',
      'openingText',
      'namespaces',
    ],
    { nameFormat: 'participantFormat' },
  ),
  'new NativeFormatter': keys(['participantMode', 'nameFormat'], {
    participantFormat: 'nameFormat',
  }),
  'new CompletionsFormatter': keys(
    [
      'eotToken',
      'nameFormat',
      'messageSeparator',
      'maxParticipantsForStop',
      ...MEDIA,
      'specialTokens',
    ],
    { participantFormat: 'nameFormat' },
  ),
  'new ChatMLFormatter': keys([
    'preset',
    'template',
    'systemToken',
    'userToken',
    'assistantToken',
    'endToken',
    'toolFormat',
    'dateString',
    'bos',
    'specialTokens',
    'extraSpecialTokens',
    ...MEDIA,
  ]),
  'ChatMLFormatter template': keys([
    'begin',
    'system',
    'user',
    'assistant',
    'trim',
    'alternate',
    'stopSequences',
    'specialTokens',
  ]),
  'new XmlStreamParser': keys([
    'tools',
    'namespaces',
    'idPrefix',
    'thinkingTag',
    'trimThinkingNewlines',
  ]),
  'new ChatMLStreamParser': keys(['tools', 'idPrefix']),
  'new NativeToolStreamParser': keys(['tools', 'idPrefix']),
  /** `createStreamParser`, `parseToolCalls` and `hasToolUse` of a formatter. */
  parser: keys(['tools']),
  buildMessages: BUILD_KEYS,
  /** `buildMessages`' `thinking: { enabled }`. */
  thinking: keys(['enabled'], { budgetTokens: 'runAgent({ thinking: { budgetTokens } })' }),
} satisfies Record<string, OptionKeys>

/** The functions (and constructors) whose options {@link checkOptions} knows. */
export type OptionsOf = keyof typeof KEYS

/**
 * Refuse an options argument that is not an object or `undefined`, or that has a key the
 * options object `which` does not have: core's `ValidationError` (`fn: param: …`), naming our key
 * for another library's (the design document's) and for a near miss in case or separators.
 */
export function checkOptions(
  options: unknown,
  which: OptionsOf,
  fn: string = which,
  param = 'options',
): void {
  assertOptions(options, fn, param, KEYS[which])
}
