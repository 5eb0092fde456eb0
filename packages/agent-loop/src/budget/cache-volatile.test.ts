import { type ContextMiddleware, type Section, textMessage } from '@contextkit/core'
import { AnthropicXmlFormatter, NativeFormatter } from '@contextkit/formatters'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { runAgent } from '../run/run-agent.js'
import { emulated, type WireBody } from '../test-support.js'
import { scriptedProvider } from '../testing/scripted-provider.js'
import { defineTool } from '../tools/define-tool.js'

// Every volatile text below contains VOLATILE and every stable one STABLE, so a request can be
// checked by reading it in the API's cache order (tools, system, messages).
const model = 'claude-haiku-4-5' // takes a prefill; caches from 4,096 tokens (16,384+ characters)
const STABLE_RULES = `STABLE rules. ${'Answer from the files only. '.repeat(700)}`

const section = (id: string, cache: Section['cache'], text: string, priority = 10): Section => ({
  id,
  text,
  priority,
  cache,
})

/** Like resumption, but worse: its volatile section goes in front of everything. */
const resumptionFirst: ContextMiddleware = {
  name: 'resumption-first',
  prepare: (turn) => ({
    ...turn,
    system: [
      section('resume', 'volatile', 'VOLATILE last session: stopped at step 3'),
      ...turn.system,
    ],
  }),
}
/** Like preload's bootstrap files: a stable section appended after whatever came before. */
const bootstrapLast: ContextMiddleware = {
  name: 'bootstrap-last',
  prepare: (turn) => ({
    ...turn,
    system: [...turn.system, section('project', 'stable', 'STABLE project context: AGENTS.md')],
  }),
}
/** Like context-metadata: a volatile hint for the user turn. */
const hint: ContextMiddleware = {
  name: 'hint',
  prepare: (turn) => ({
    ...turn,
    userSections: [
      ...turn.userSections,
      section('hint', 'volatile', 'VOLATILE hint: orders.ndjson has 1,000 lines'),
    ],
  }),
}
/** A low-priority volatile section that budget fitting drops (its notice is volatile too). */
const bulky: ContextMiddleware = {
  name: 'bulky',
  prepare: (turn) => ({
    ...turn,
    system: [...turn.system, section('bulky', 'volatile', `VOLATILE ${'x'.repeat(40_000)}`, 0)],
  }),
}
/** Like prefill: the reply is opened with ephemeral text. */
const prefill: ContextMiddleware = {
  name: 'prefill',
  prepare: (turn) => ({ ...turn, prefill: 'VOLATILE-PREFILL' }),
}

/** The request's blocks in cache order, as JSON, and where the stable system breakpoint is. */
function cacheOrder(body: WireBody): { units: string[]; breakpoint: number } {
  const units: string[] = []
  let breakpoint = -1
  for (const t of body.tools ?? []) units.push(JSON.stringify(t))
  for (const b of body.system ?? []) {
    if (b.cache_control) breakpoint = units.length
    units.push(JSON.stringify(b))
  }
  for (const m of body.messages) {
    if (typeof m.content === 'string') units.push(JSON.stringify(m.content))
    else for (const b of m.content) units.push(JSON.stringify(b))
  }
  return { units, breakpoint }
}

describe('volatile text never lands before the stable breakpoint', () => {
  test('resumption, bootstrap, context hint, plan, omission notice and prefill (real SDK, testkit)', async () => {
    const tool = defineTool({
      name: 'read_file',
      description: 'Read a file.',
      input: z.object({ path: z.string() }),
      execute: () => 'VOLATILE file contents',
    })
    const { provider, bodies } = await emulated([
      '{"action":"proceed","plan":"VOLATILE plan: read orders.ndjson"}',
      { text: 'Reading.', toolUse: { name: 'read_file', input: { path: 'orders.ndjson' } } },
      { toolUse: { name: 'read_file', input: { path: 'schema.json' } } },
      'Orders have ids.',
    ])
    const result = await runAgent({
      provider,
      model,
      system: [section('rules', 'stable', STABLE_RULES, 100)],
      messages: [textMessage('user', 'What is in the orders?')],
      tools: [tool],
      middleware: [resumptionFirst, bootstrapLast, hint, bulky, prefill],
      plan: true,
      budgetTokens: 9_000,
    }).result
    expect(result.error).toBeUndefined()
    expect(result.plan).toContain('VOLATILE plan')
    const sent = bodies()
    expect(sent).toHaveLength(4)
    const agentCalls = sent.slice(1)
    // the omission notice and the prefill are really in the requests
    expect(JSON.stringify(agentCalls[0])).toContain('Left out (1')
    expect(JSON.stringify(agentCalls[0])).toContain('VOLATILE-PREFILL')
    for (const body of agentCalls) {
      const { units, breakpoint } = cacheOrder(body)
      expect(breakpoint).toBeGreaterThanOrEqual(0)
      const upTo = units.slice(0, breakpoint + 1).join('\n')
      expect(upTo).not.toContain('VOLATILE')
      expect(upTo).toContain('STABLE rules')
      expect(upTo).toContain('STABLE project context')
      const after = units.slice(breakpoint + 1).join('\n')
      for (const text of ['last session', 'hint:', 'plan:', 'Left out (1'])
        expect(after).toContain(text)
    }
    // the stable prefix written by the first agent call is read by the others
    const agent = result.usage.calls.filter((c) => c.phase === 'agent')
    expect(agent[0]!.cacheWrite).toBeGreaterThan(4_096)
    for (const c of agent.slice(1)) expect(c.cacheRead).toBeGreaterThan(4_096)
  })

  test('property: any middleware order, either chat format: stable texts all before, volatile after', async () => {
    const placement = fc.record({
      stable: fc.boolean(),
      where: fc.constantFrom('system-front', 'system-end', 'system-middle', 'user'),
    })
    await fc.assert(
      fc.asyncProperty(
        fc.array(placement, { minLength: 1, maxLength: 6 }),
        fc.boolean(),
        fc.boolean(),
        async (added, xml, withPrefill) => {
          const middleware: ContextMiddleware[] = added.map((p, i) => ({
            name: `m${i}`,
            prepare: (turn) => {
              const s = section(
                `s${i}`,
                p.stable && p.where !== 'user' ? 'stable' : 'volatile',
                `${p.stable && p.where !== 'user' ? 'STABLE' : 'VOLATILE'}-${i}`,
              )
              if (p.where === 'user') return { ...turn, userSections: [...turn.userSections, s] }
              const at =
                p.where === 'system-front'
                  ? 0
                  : p.where === 'system-end'
                    ? turn.system.length
                    : Math.floor(turn.system.length / 2)
              return { ...turn, system: [...turn.system.slice(0, at), s, ...turn.system.slice(at)] }
            },
          }))
          if (withPrefill) middleware.push(prefill)
          const provider = scriptedProvider(['ok'])
          const result = await runAgent({
            provider,
            model,
            system: [section('base', 'stable', 'STABLE-base')],
            messages: [textMessage('user', 'Go.')],
            middleware,
            formatter: xml ? new AnthropicXmlFormatter() : new NativeFormatter(),
          }).result
          expect(result.error).toBeUndefined()
          const request = provider.requests[0]!
          const marked = request.system.findIndex((b) => b.cache_control)
          expect(marked).toBeGreaterThanOrEqual(0)
          const upTo = request.system
            .slice(0, marked + 1)
            .map((b) => b.text)
            .join('\n')
          const rest = [
            ...request.system.slice(marked + 1).map((b) => b.text),
            ...request.messages.flatMap((m) => m.content.map((b) => JSON.stringify(b))),
          ].join('\n')
          expect(upTo).not.toContain('VOLATILE')
          const stables = [
            'STABLE-base',
            ...added.flatMap((p, i) => (p.stable && p.where !== 'user' ? [`STABLE-${i}`] : [])),
          ]
          for (const s of stables) expect(upTo).toContain(s)
          expect(rest).not.toContain('STABLE')
          added.forEach((p, i) => {
            if (!(p.stable && p.where !== 'user')) expect(rest).toContain(`VOLATILE-${i}`)
          })
        },
      ),
      { numRuns: 60 },
    )
  })
})
