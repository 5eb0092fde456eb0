// Property: whatever the prefill text, the model, the format and whether the prefill middleware
// is in the run, no saved message (result or session file) holds the prefill the request opened
// the reply with. The loop itself knows no prefill: only the generic trailing-turn rule and the
// prefill package's finalize/recover are at work here.
import { mkdir, writeFile } from 'node:fs/promises'
import { sessionMessages, textMessage, textOf } from '@contextkit/core'
import { AnthropicXmlFormatter, NativeFormatter } from '@contextkit/formatters'
import { prefill } from '@contextkit/prefill/node'
import { jsonlSessionStore } from '@contextkit/store-files'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { tempDir } from '../../../../test-utils/temp-dir.js'
import { runAgent } from '../run/run-agent.js'
import { emulated, onCleanup } from '../test-support.js'

const prefillText = fc
  .string({ minLength: 3, maxLength: 40, unit: fc.constantFrom('a', 'b', 'Z', ' ', ':', '1', 'é') })
  .map((s) => `P${s.trim()}:`)

describe('the saved history never contains a prefill', () => {
  test('property: any prefill, model, format, with and without the prefill middleware', async () => {
    await fc.assert(
      fc.asyncProperty(
        prefillText,
        fc.constantFrom('claude-haiku-4-5', 'claude-sonnet-4-6'),
        fc.constantFrom('native', 'xml'),
        fc.boolean(),
        fc.string({ minLength: 1, maxLength: 30 }).filter((s) => s.trim() !== ''),
        async (text, model, format, withMiddleware, answer) => {
          const { dir, cleanup } = await tempDir('prefill-prop-')
          onCleanup(cleanup)
          await mkdir(dir, { recursive: true })
          await writeFile(`${dir}/PREFILL.md`, `${text}\n`)
          const { provider } = await emulated([() => ` ${answer}`])
          const store = jsonlSessionStore(`${dir}/sessions`)
          const result = await runAgent({
            provider,
            model,
            formatter: format === 'xml' ? new AnthropicXmlFormatter() : new NativeFormatter(),
            workspace: dir,
            middleware: withMiddleware ? [prefill()] : [],
            messages: [textMessage('user', 'Go on.')],
            session: { store, id: 's' },
          }).result
          expect(result.error).toBeUndefined()
          const stored = sessionMessages((await store.load('s')).entries)
          const saved = [...result.messages, ...stored].filter((m) => m.role === 'assistant')
          expect(saved.length).toBeGreaterThan(0)
          for (const m of saved) expect(textOf(m).startsWith(text)).toBe(false)
        },
      ),
      { numRuns: 24 },
    )
  }, 60_000)
})
