export type { AnthropicXmlFormatterOptions } from './anthropic-xml-formatter.js'
export { AnthropicXmlFormatter } from './anthropic-xml-formatter.js'
export { escapeBlockText } from './block-text.js'
export { applyCacheMarkers } from './cache-markers.js'
export type { ChatTemplate, ChatTemplatePreset, TurnTokens } from './chat-templates.js'
export { CHAT_TEMPLATES } from './chat-templates.js'
export type { ChatMLFormatterOptions } from './chatml-formatter.js'
export { CHATML_SPECIAL_TOKENS, ChatMLFormatter, renderQwenToolCall } from './chatml-formatter.js'
export type { ChatMLParserOptions } from './chatml-parser.js'
export { ChatMLStreamParser } from './chatml-parser.js'
export { coerceParameter } from './coerce.js'
export type { CompletionsFormatterOptions } from './completions-formatter.js'
export { CompletionsFormatter } from './completions-formatter.js'
export {
  InvalidParticipantError,
  PrefillUnsupportedError,
  SpecialTokenError,
  TooManyParticipantsError,
  UnsupportedContentError,
} from './errors.js'
export type { FormatterModel } from './formatter-for.js'
export { endsWithAssistantTurn, formatterFor, modelAcceptsFormat } from './formatter-for.js'
export { parseJsonLossless, stringifyJson } from './lossless-json.js'
export type { ToolResultMediaPolicy, UnsupportedMediaPolicy } from './media.js'
export type { NativeFormatterOptions } from './native-formatter.js'
export { NativeFormatter } from './native-formatter.js'
export type { NativeToolFamily } from './native-tool-formats.js'
export type { NativeCallSyntax, NativeToolParserOptions } from './native-tool-parser.js'
export { NativeToolStreamParser } from './native-tool-parser.js'
export { PassThroughStreamParser } from './passthrough-parser.js'
export type { RequestMemo } from './request-memo.js'
export { requestMemo } from './request-memo.js'
export type { SpecialTokenPolicy } from './special-tokens.js'
export { guardSpecialTokens, TOKEN_ESCAPE } from './special-tokens.js'
export { MAX_TAG_LENGTH } from './tag-scanner.js'
export type {
  BlockType,
  BuildOptions,
  CacheControl,
  CacheTtl,
  FormattedBlock,
  FormattedImageBlock,
  FormattedMessage,
  FormattedRedactedThinkingBlock,
  FormattedRequest,
  FormattedTextBlock,
  FormattedThinkingBlock,
  FormattedToolResultBlock,
  FormattedToolUseBlock,
  Formatter,
  FormatWarning,
  NativeToolDefinition,
  ParserOptions,
  StreamEvent,
  StreamParser,
} from './types.js'
export { currentUserTurn, withUserSections } from './user-sections.js'
export { escapeXml, unescapeXml } from './xml-escape.js'
export type { XmlParserOptions } from './xml-stream-parser.js'
export { XmlStreamParser } from './xml-stream-parser.js'
export {
  parseXmlToolCalls,
  renderXmlToolCalls,
  renderXmlToolDefinitions,
  renderXmlToolResults,
} from './xml-tools.js'
