// One step's window: a stacked bar to the model's window, and the same numbers as a table.
import type { CompositionView } from '../src/model.js'
import { n, pct } from './format.js'

/** What each kind of part is called on the page. */
const KIND_WORDS: Record<string, string> = {
  system: 'system section',
  tools: 'tool definitions',
  summary: 'compaction summary',
  history: 'kept history',
  'tool-results': "this step's tool results",
  user: 'user section',
  prefill: 'prefill',
  reply: 'reserved for the reply',
  free: 'free',
}

/** `1 message`, `3 messages`. */
function counted(count: number, word: string): string {
  return `${n(count)} ${word}${count === 1 ? '' : 's'}`
}

interface Row {
  kind: string
  name: string
  tokens: number
  detail: string
}

function rows(c: CompositionView): Row[] {
  const out: Row[] = c.parts.map((p) => ({
    kind: p.kind,
    name: p.kind === 'system' || p.kind === 'user' ? p.id : (KIND_WORDS[p.kind] ?? p.kind),
    tokens: p.tokens,
    detail: [
      p.kind === 'system' || p.kind === 'user' ? KIND_WORDS[p.kind] : '',
      p.cache ? `cache: ${p.cache}` : '',
      p.count !== undefined
        ? `${n(p.count)} ${p.kind === 'tools' ? 'definitions' : 'messages'}`
        : '',
    ]
      .filter(Boolean)
      .join(' · '),
  }))
  out.push({
    kind: 'reply',
    name: KIND_WORDS.reply ?? 'reply',
    tokens: c.reply,
    detail: 'max tokens',
  })
  out.push({
    kind: 'free',
    name: 'free',
    tokens: Math.max(0, c.free),
    detail: c.free < 0 ? `over the window by ${n(-c.free)}` : '',
  })
  return out
}

/** The stacked bar (hidden from screen readers: the table below says the same). */
function Bar({ parts, whole }: { parts: Row[]; whole: number }) {
  const scale = 1000 / Math.max(1, whole)
  let x = 0
  return (
    <svg
      class="bar"
      viewBox="0 0 1000 28"
      preserveAspectRatio="none"
      aria-hidden="true"
      focusable="false"
    >
      {parts.map((p, i) => {
        const w = p.tokens * scale
        const rect = (
          <rect
            key={i}
            class={`part part-${p.kind}`}
            x={x}
            y={0}
            width={Math.max(w, p.tokens > 0 ? 1 : 0)}
            height={28}
          >
            <title>{`${p.name}: ${n(p.tokens)} tokens`}</title>
          </rect>
        )
        x += w
        return rect
      })}
    </svg>
  )
}

/** The composition of one request: bar, legend-table, exact or estimate. */
export function Composition({ c, index }: { c: CompositionView; index: number }) {
  const parts = rows(c)
  const how = c.exact ? 'exact counts' : 'estimates'
  const used = c.total + c.reply
  return (
    <section class="composition" aria-label={`Window composition of step ${index}`}>
      <h4>
        Window: {n(c.total)} tokens in the request + {n(c.reply)} reserved for the reply, of{' '}
        {n(c.window)}{' '}
        <span class={c.exact ? 'badge exact' : 'badge estimate'} data-testid="count-kind">
          {how}
        </span>
      </h4>
      <Bar parts={parts} whole={Math.max(c.window, c.total + c.reply)} />
      {used < c.window / 5 ? (
        <>
          <p class="muted small">The used part ({pct(used, c.window)} of the window), enlarged:</p>
          <Bar parts={parts.filter((p) => p.kind !== 'free')} whole={used} />
        </>
      ) : null}
      <table class="parts" data-testid="composition-table">
        <caption>
          What filled the window ({how}, counter {c.counter}; {counted(c.messages.count, 'message')}
          )
        </caption>
        <thead>
          <tr>
            <th scope="col">part</th>
            <th scope="col">tokens</th>
            <th scope="col">of the window</th>
            <th scope="col">notes</th>
          </tr>
        </thead>
        <tbody>
          {parts.map((p) => (
            <tr
              key={`${p.kind}:${p.name}`}
              data-part={p.kind === p.name ? p.kind : `${p.kind}:${p.name}`}
            >
              <th scope="row">
                <span class={`swatch part-${p.kind}`} aria-hidden="true" />
                {p.name}
              </th>
              <td class="num" data-testid="part-tokens">
                {n(p.tokens)}
              </td>
              <td class="num">{pct(p.tokens, c.window)}</td>
              <td>{p.detail}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  )
}
