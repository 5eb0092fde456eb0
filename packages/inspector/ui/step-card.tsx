// One step: its window, what changed since the step before, the cache, omissions, the reply,
// the tool calls and a compaction.
import type { CompactionView, StepView, ToolCallView } from '../src/model.js'
import { Composition } from './composition.js'
import { ms, n, when } from './format.js'

/** Longer texts are folded (a `<details>` the reader opens). */
const FOLD_CHARS = 600

function Folded({ label, text }: { label: string; text: string }) {
  if (text.length <= FOLD_CHARS && !text.includes('\n\n')) return <pre class="text">{text}</pre>
  return (
    <details>
      <summary>
        {label} ({n(text.length)} characters)
      </summary>
      <pre class="text">{text}</pre>
    </details>
  )
}

function Diff({ step }: { step: StepView }) {
  const d = step.diff
  if (!d) return null
  const list = (words: string[]) => (words.length > 0 ? words.join(', ') : 'none')
  const history =
    d.sameMessages === null
      ? `the run's first call: history loaded from the session (${n(d.previousMessages)} messages before)`
      : `${n(d.sameMessages)} of the previous ${n(d.previousMessages)} messages sent unchanged`
  return (
    <section class="diff" aria-label="Changes since the previous step">
      <h4>Since step {d.previous}</h4>
      <ul>
        <li data-testid="first-change">
          First difference: {d.firstChange ?? 'none: the previous request is a prefix of this one'}
        </li>
        <li>Changed: {list(d.changed)}</li>
        <li>Added: {list(d.added)}</li>
        <li>Removed: {list(d.removed)}</li>
        <li>History: {history}</li>
      </ul>
    </section>
  )
}

function Cache({ step }: { step: StepView }) {
  const c = step.cache
  if (!c) return null
  return (
    <section class="cache" aria-label="Prompt cache">
      <h4>Cache</h4>
      <table>
        <thead>
          <tr>
            <th scope="col">read from the cache</th>
            <th scope="col">written to it</th>
            <th scope="col">uncached input</th>
            <th scope="col">output</th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <td class="num">{n(c.read)}</td>
            <td class="num">{n(c.write)}</td>
            <td class="num">{n(c.uncached)}</td>
            <td class="num">{n(step.usage?.output)}</td>
          </tr>
        </tbody>
      </table>
      <p>
        Breakpoints (the cached prefix ends at the last one read):{' '}
        {c.breakpoints.length > 0 ? c.breakpoints.join(' · ') : 'none recorded'}
      </p>
    </section>
  )
}

function Omissions({ step }: { step: StepView }) {
  if (step.omissions.length === 0) return null
  return (
    <section aria-label="Budget fitting">
      <h4>Budget fitting shortened or dropped</h4>
      <table>
        <thead>
          <tr>
            <th scope="col">section</th>
            <th scope="col">what happened</th>
            <th scope="col">tokens saved</th>
          </tr>
        </thead>
        <tbody>
          {step.omissions.map((o) => (
            <tr key={o.id}>
              <th scope="row">{o.id}</th>
              <td>{o.reason}</td>
              <td class="num">{n(o.tokensSaved)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  )
}

function Call({ call }: { call: ToolCallView }) {
  const approval = call.approval
    ? `${call.approval}${call.reason ? ` (reason: ${call.reason})` : ''}`
    : 'not asked'
  return (
    <li class={call.isError ? 'call error' : 'call'} data-testid="tool-call">
      <p>
        <strong>{call.name}</strong> <code>{call.id}</code> · {call.isError ? 'error' : 'ok'} ·{' '}
        {ms(call.durationMs)} · approval: {approval}
      </p>
      {call.input ? <Folded label="input" text={call.input} /> : null}
      {call.result === null ? (
        <p class="muted">no result saved</p>
      ) : (
        <Folded label="result" text={call.result} />
      )}
    </li>
  )
}

function Compaction({ c }: { c: CompactionView }) {
  return (
    <section class="compaction" aria-label="Compaction">
      <h4>Compacted ({c.reason ?? 'reason unknown'})</h4>
      <p>
        {n(c.tokensBefore)} tokens before, {n(c.tokensAfter)} after; the summary replaced{' '}
        {c.summarized === null ? 'the messages' : `${n(c.summarized)} messages`} before{' '}
        {c.firstKeptId ? <code>{c.firstKeptId}</code> : 'the kept tail'}
        {c.kept === null ? '' : ` (${n(c.kept)} kept)`}.
      </p>
      {c.summary !== null ? <Folded label="summary" text={c.summary} /> : null}
    </section>
  )
}

/** A step card. */
export function StepCard({ step }: { step: StepView }) {
  const where = step.run === null ? '' : ` · run ${step.run}, step ${step.step}`
  const phase = step.phase && step.phase !== 'agent' ? ` (${step.phase})` : ''
  return (
    <article class="step" data-step-index={step.index} aria-labelledby={`step-${step.index}`}>
      <h3 id={`step-${step.index}`}>
        Step {step.index}
        {where}
        {phase}
      </h3>
      <p class="muted">
        {when(step.at)} · stop: {step.stopReason ?? '–'}
        {step.attempts > 1 ? ` · sent ${step.attempts} times` : ''}
      </p>
      {step.error ? <p class="error">Error: {step.error}</p> : null}
      {step.compaction ? <Compaction c={step.compaction} /> : null}
      {step.composition ? (
        <Composition c={step.composition} index={step.index} />
      ) : (
        <p class="muted">No composition recorded for this step (no trace, or an older one).</p>
      )}
      <Diff step={step} />
      <Cache step={step} />
      <Omissions step={step} />
      {step.thinking ? <Folded label="thinking" text={step.thinking} /> : null}
      <section aria-label="Reply">
        <h4>Reply</h4>
        {step.text ? <Folded label="reply" text={step.text} /> : <p class="muted">no text</p>}
      </section>
      {step.toolCalls.length > 0 ? (
        <section aria-label="Tool calls">
          <h4>Tool calls</h4>
          <ul class="calls">
            {step.toolCalls.map((c) => (
              <Call key={c.id} call={c} />
            ))}
          </ul>
        </section>
      ) : null}
    </article>
  )
}
