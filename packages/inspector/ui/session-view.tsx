// A session: its figures, the calls waiting for a decision, and its steps, newest last, loaded
// a window at a time (earlier ones when the reader scrolls up), followed live.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks'
import type { PendingCall, SessionSummaryView, StepView } from '../src/model.js'
import {
  decide,
  steps as fetchSteps,
  summary as fetchSummary,
  tail as fetchTail,
  live,
} from './api.js'
import { n, STATE_WORDS, usd, when } from './format.js'
import { StepCard } from './step-card.js'

/** Steps fetched at a time. */
const WINDOW = 20

function Pending({ id, call, canResume }: { id: string; call: PendingCall; canResume: boolean }) {
  const [reason, setReason] = useState('')
  const [status, setStatus] = useState('')
  const send = async (approve: boolean) => {
    setStatus('sending…')
    const error = await decide(id, {
      toolCallId: call.toolCallId,
      approve,
      ...(approve || reason === '' ? {} : { reason }),
    })
    setStatus(error ?? (approve ? 'approved: the run resumes' : 'denied: the run resumes'))
  }
  return (
    <li class="pending" data-testid="pending-call">
      <p>
        <strong>{call.tool}</strong> <code>{call.toolCallId}</code> waits for your decision
      </p>
      <details open>
        <summary>input</summary>
        <pre class="text">{call.input}</pre>
      </details>
      {canResume ? (
        <div class="decide">
          <button type="button" onClick={() => void send(true)}>
            Approve
          </button>
          <label>
            Reason (sent to the model when you deny){' '}
            <input type="text" value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
          </label>
          <button type="button" class="deny" onClick={() => void send(false)}>
            Deny
          </button>
        </div>
      ) : (
        <p class="muted">This inspector was started without a way to resume runs.</p>
      )}
      <p role="status">{status}</p>
    </li>
  )
}

function Header({ s }: { s: SessionSummaryView }) {
  return (
    <header class="session-head">
      <h2>
        Session <code>{s.id}</code>{' '}
        <span class={`badge state-${s.state}`} data-testid="session-state">
          {STATE_WORDS[s.state] ?? s.state}
        </span>
      </h2>
      <dl class="figures">
        <dt>steps</dt>
        <dd data-testid="step-count">{n(s.steps)}</dd>
        <dt>last stop</dt>
        <dd data-testid="stop-reason">{s.stopReason ?? '–'}</dd>
        <dt>tokens in</dt>
        <dd>{n(s.usage.input + s.usage.cacheRead + s.usage.cacheWrite)}</dd>
        <dt>from the cache</dt>
        <dd>{n(s.usage.cacheRead)}</dd>
        <dt>tokens out</dt>
        <dd>{n(s.usage.output)}</dd>
        <dt>cost</dt>
        <dd>{usd(s.usage.costUsd)}</dd>
        <dt>compactions</dt>
        <dd>{n(s.compactions)}</dd>
        <dt>created</dt>
        <dd>{when(s.createdAt)}</dd>
        <dt>last activity</dt>
        <dd>{when(s.lastActivity)}</dd>
      </dl>
      {s.traced ? null : (
        <p class="muted">No run trace: the page shows what the session log holds.</p>
      )}
      {s.error ? <p class="error">Error: {s.error}</p> : null}
      {s.warnings.map((w) => (
        <p class="warning" key={w}>
          {w}
        </p>
      ))}
    </header>
  )
}

/** The step list with the earlier-steps loader at its top. */
function Steps({
  id,
  total,
  list,
  from,
  setPage,
}: {
  id: string
  total: number
  list: StepView[]
  from: number
  setPage: (from: number, list: StepView[]) => void
}) {
  const top = useRef<HTMLDivElement>(null)
  const loadEarlier = useCallback(async () => {
    if (from <= 1) return
    const start = Math.max(1, from - WINDOW)
    const page = await fetchSteps(id, start, from - start)
    setPage(start, [...page.steps, ...list])
  }, [id, from, list, setPage])
  useEffect(() => {
    const el = top.current
    if (!el || from <= 1) return
    const seen = new IntersectionObserver((e) => {
      if (e.some((x) => x.isIntersecting)) void loadEarlier()
    })
    seen.observe(el)
    return () => seen.disconnect()
  }, [from, loadEarlier])
  return (
    <section class="steps" aria-label="Steps">
      <div ref={top}>
        {from > 1 ? (
          <button type="button" onClick={() => void loadEarlier()}>
            Load earlier steps ({n(from - 1)} before step {from})
          </button>
        ) : null}
      </div>
      <p class="muted" data-testid="shown-steps">
        Showing steps {n(list.length > 0 ? from : 0)}–{n(list.at(-1)?.index ?? 0)} of {n(total)}
      </p>
      {list.map((s) => (
        <StepCard key={s.index} step={s} />
      ))}
    </section>
  )
}

/** The session page. */
export function SessionView({ id, canResume }: { id: string; canResume: boolean }) {
  const [summary, setSummary] = useState<SessionSummaryView | null>(null)
  const [error, setError] = useState('')
  const [page, setPageState] = useState<{ from: number; list: StepView[] }>({ from: 1, list: [] })
  const pageRef = useRef(page)
  const setPage = useCallback((from: number, list: StepView[]) => {
    pageRef.current = { from, list }
    setPageState(pageRef.current)
  }, [])
  const refresh = useCallback(async () => {
    try {
      const shown = pageRef.current
      // first time: the newest window, asked for with the summary; then what is shown, to the end
      const [s, first] = await Promise.all([
        fetchSummary(id),
        shown.list.length === 0 ? fetchTail(id, WINDOW) : undefined,
      ])
      const start = s.steps - shown.from + 1 > 200 ? Math.max(1, s.steps - WINDOW + 1) : shown.from
      const fresh = first ?? (await fetchSteps(id, start, s.steps - start + 1))
      setSummary(s)
      setPage(fresh.from, fresh.steps)
      setError('')
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e))
    }
  }, [id, setPage])
  useEffect(() => {
    pageRef.current = { from: 1, list: [] }
    void refresh()
    return live(`api/sessions/${encodeURIComponent(id)}/events`, () => void refresh())
  }, [id, refresh])
  if (error) return <p class="error">{error}</p>
  if (!summary) return <p>Loading the session…</p>
  return (
    <div>
      <p>
        <a href="#/">← all sessions</a>
      </p>
      <Header s={summary} />
      {summary.pending.length > 0 ? (
        <section class="approvals" aria-label="Pending approvals">
          <h3>Pending approvals</h3>
          <ul>
            {summary.pending.map((c) => (
              <Pending key={c.toolCallId} id={id} call={c} canResume={canResume} />
            ))}
          </ul>
        </section>
      ) : null}
      <Steps id={id} total={summary.steps} list={page.list} from={page.from} setPage={setPage} />
    </div>
  )
}
