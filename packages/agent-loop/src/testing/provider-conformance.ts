import { assertObject, describeError, invalidArgument } from '@contextkit/core'
import { PROVIDER_CHECKS, type ProviderCheck } from './provider-checks.js'
import {
  ConformanceHarness,
  type MakeConformanceProvider,
  type ProviderConformanceOptions,
} from './provider-harness.js'

/** How one check went. */
export interface ProviderCheckResult {
  /** The check's name. */
  check: string
  /** Whether the provider passed it, failed it, or skipped it (a capability it lacks). */
  outcome: 'pass' | 'fail' | 'skip'
  /** Why it failed, or which capability it needed when skipped. */
  detail?: string
}

/** What {@link providerConformance} found. */
export interface ProviderConformanceReport {
  /** The provider's `name`. */
  provider: string
  /** Every check's result, in the order they ran. */
  results: ProviderCheckResult[]
  /** How many checks passed. */
  passed: number
  /** How many checks failed. */
  failed: number
  /** How many checks were skipped. */
  skipped: number
  /** The results as a Markdown table (check, outcome, detail). */
  table(): string
}

function table(results: readonly ProviderCheckResult[]): string {
  const mark = { pass: '✅ pass', fail: '❌ fail', skip: '— skip' } as const
  const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ')
  return [
    '| check | outcome | detail |',
    '|---|---|---|',
    ...results.map((r) => `| ${cell(r.check)} | ${mark[r.outcome]} | ${cell(r.detail ?? '')} |`),
  ].join('\n')
}

async function runCheck(
  check: ProviderCheck,
  make: MakeConformanceProvider,
  options: ProviderConformanceOptions,
): Promise<ProviderCheckResult> {
  if (check.needs && options.supports?.[check.needs] === false) {
    return { check: check.name, outcome: 'skip', detail: `needs ${check.needs}` }
  }
  const harness = new ConformanceHarness(make, options)
  try {
    await check.run(harness)
    return { check: check.name, outcome: 'pass' }
  } catch (error) {
    return { check: check.name, outcome: 'fail', detail: describeError(error).split('\n')[0] }
  } finally {
    await harness.close()
  }
}

/**
 * Holds a `ModelProvider` to the loop's contract: about two dozen checks, each running the real loop
 * (`runAgent`) on the provider against a scripted emulator — text and thinking deltas, multi-byte
 * text over 1-byte writes, usage, tool calls with input streamed in tiny pieces, parallel calls in
 * order, error and unknown-tool results, `max_tokens`, images in user messages and tool results,
 * a mid-stream failure retried without running the partial reply's tool, a reset, 429 then
 * success, a 400 not retried, a bounded number of tries against a failing server, abort mid-stream
 * and before the start, cache reads. Checks of what `options.supports` says the provider lacks are
 * skipped. Resolves a report (never rejects for a failed check); `report.table()` is Markdown.
 *
 * `makeProvider` gets the emulator's URL; `options.startEmulator` is testkit's
 * `startAnthropicEmulator` (so this entry does not depend on testkit), which serves the Messages
 * API, OpenAI-compatible `/v1/chat/completions` and `/v1/completions` from the same script.
 */
export async function providerConformance(
  makeProvider: MakeConformanceProvider,
  options: ProviderConformanceOptions,
): Promise<ProviderConformanceReport> {
  if (typeof makeProvider !== 'function') {
    invalidArgument(
      'providerConformance',
      'makeProvider',
      'a function returning a ModelProvider',
      makeProvider,
    )
  }
  if (
    typeof options !== 'object' ||
    options === null ||
    typeof options.startEmulator !== 'function'
  ) {
    invalidArgument(
      'providerConformance',
      'options.startEmulator',
      "testkit's startAnthropicEmulator",
      options,
    )
  }
  const results: ProviderCheckResult[] = []
  for (const check of PROVIDER_CHECKS) results.push(await runCheck(check, makeProvider, options))
  const probe = new ConformanceHarness(makeProvider, options)
  const { provider } = await probe.start([])
  await probe.close()
  const tally = (o: ProviderCheckResult['outcome']) => results.filter((r) => r.outcome === o).length
  return {
    provider: provider.name,
    results,
    passed: tally('pass'),
    failed: tally('fail'),
    skipped: tally('skip'),
    table: () => table(results),
  }
}

/**
 * Several providers' reports side by side: one row per check, one column per provider (✅ passed,
 * ❌ failed, — skipped), as Markdown. The provider table of docs/guides/providers.md is this, for
 * the providers in the repo.
 */
export function conformanceMatrix(
  reports: Readonly<Record<string, ProviderConformanceReport>>,
): string {
  assertObject(reports, 'conformanceMatrix', 'reports')
  const names = Object.keys(reports)
  const mark = { pass: '✅', fail: '❌', skip: '—' } as const
  const checks = PROVIDER_CHECKS.map((c) => c.name)
  const rows = checks.map((check) => {
    const cells = names.map((n) => {
      const r = reports[n]!.results.find((x) => x.check === check)
      return r ? mark[r.outcome] : '?'
    })
    return `| ${check} | ${cells.join(' | ')} |`
  })
  return [
    `| check | ${names.join(' | ')} |`,
    `|---|${names.map(() => ':-:').join('|')}|`,
    ...rows,
  ].join('\n')
}

/** The names of the checks {@link providerConformance} runs, in order. */
export const PROVIDER_CHECK_NAMES: readonly string[] = PROVIDER_CHECKS.map((c) => c.name)
