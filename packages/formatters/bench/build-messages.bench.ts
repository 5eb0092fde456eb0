import { bench, describe } from 'vitest'
import { AnthropicXmlFormatter, ChatMLFormatter, NativeFormatter } from '../src/index.js'
import { conversation, tools } from './conversation.js'

const formatters = [
  ['AnthropicXmlFormatter', new AnthropicXmlFormatter()],
  ['NativeFormatter', new NativeFormatter()],
  ['ChatMLFormatter', new ChatMLFormatter()],
] as const

for (const n of [10, 1000]) {
  const messages = conversation(n)
  describe(`buildMessages, ${n} messages`, () => {
    for (const [name, f] of formatters) {
      bench(name, () => void f.buildMessages(messages, { system: 'Be brief.', tools }), {
        time: 1000,
      })
    }
  })
}
