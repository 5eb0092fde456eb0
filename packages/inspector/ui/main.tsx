// The inspector page: the sessions list (#/) and a session (#/s/<id>), rendered with Preact. Every
// value from a session or a trace is rendered as text, never parsed as HTML.
import { render } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import type { SessionListItem } from '../src/model.js'
import { canResume, live, sessions } from './api.js'
import { n, STATE_WORDS, usd, when } from './format.js'
import { SessionView } from './session-view.js'
import './styles.css'

function SessionsList() {
  const [list, setList] = useState<SessionListItem[] | null>(null)
  const [error, setError] = useState('')
  useEffect(() => {
    const load = () =>
      sessions().then(
        (l) => setList(l),
        (e: unknown) => setError(String(e)),
      )
    void load()
    return live('api/events', () => void load())
  }, [])
  if (error) return <p class="error">{error}</p>
  if (!list) return <p>Loading the sessions…</p>
  if (list.length === 0) return <p>No sessions yet.</p>
  return (
    <table class="sessions" data-testid="sessions">
      <caption>Sessions, newest activity first</caption>
      <thead>
        <tr>
          <th scope="col">session</th>
          <th scope="col">last activity</th>
          <th scope="col">state</th>
          <th scope="col">steps</th>
          <th scope="col">tokens in</th>
          <th scope="col">tokens out</th>
          <th scope="col">cost</th>
          <th scope="col">compactions</th>
        </tr>
      </thead>
      <tbody>
        {list.map((s) => (
          <tr key={s.id}>
            <th scope="row">
              <a href={`#/s/${encodeURIComponent(s.id)}`}>{s.id}</a>
            </th>
            <td>{when(s.lastActivity)}</td>
            <td>
              <span class={`badge state-${s.state}`}>{STATE_WORDS[s.state] ?? s.state}</span>
            </td>
            <td class="num">{n(s.steps)}</td>
            <td class="num">{n(s.usage.input + s.usage.cacheRead + s.usage.cacheWrite)}</td>
            <td class="num">{n(s.usage.output)}</td>
            <td class="num">{usd(s.usage.costUsd)}</td>
            <td class="num">{n(s.compactions)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

function route(): string | null {
  const m = /^#\/s\/(.+)$/.exec(location.hash)
  return m?.[1] ? decodeURIComponent(m[1]) : null
}

function App() {
  const [session, setSession] = useState(route())
  useEffect(() => {
    const onHash = () => setSession(route())
    addEventListener('hashchange', onHash)
    return () => removeEventListener('hashchange', onHash)
  }, [])
  return (
    <main>
      <h1>
        <a href="#/">contextkit inspector</a>
      </h1>
      {session === null ? <SessionsList /> : <SessionView id={session} canResume={canResume} />}
    </main>
  )
}

const root = document.getElementById('app')
if (root) {
  root.textContent = ''
  render(<App />, root)
}
