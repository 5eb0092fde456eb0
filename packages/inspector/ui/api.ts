// The page's calls to the inspector's API: the token from the page's meta tag on every call.
import type { SessionListItem, SessionSummaryView, StepsPage } from '../src/model.js'

const token = document.querySelector('meta[name="inspector-token"]')?.getAttribute('content') ?? ''

/** The token header the server asks for (`TOKEN_HEADER`). */
const TOKEN_HEADER = 'x-inspector-token'

async function get<T>(path: string): Promise<T> {
  const response = await fetch(path, { headers: { [TOKEN_HEADER]: token } })
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`)
  return (await response.json()) as T
}

/** Whether this inspector can resume runs (the app gave `resume`). */
export const canResume =
  document.querySelector('meta[name="inspector-resume"]')?.getAttribute('content') === 'yes'

/** The sessions list. */
export function sessions(): Promise<SessionListItem[]> {
  return get('api/sessions')
}

/** One session's figures and waiting calls. */
export function summary(id: string): Promise<SessionSummaryView> {
  return get(`api/sessions/${encodeURIComponent(id)}`)
}

/** The newest `count` steps. */
export function tail(id: string, count: number): Promise<StepsPage> {
  return get(`api/sessions/${encodeURIComponent(id)}/steps?tail=${count}`)
}

/** Steps `from` on (1-based), at most `count`. */
export function steps(id: string, from: number, count: number): Promise<StepsPage> {
  return get(`api/sessions/${encodeURIComponent(id)}/steps?from=${from}&count=${count}`)
}

/** Approve or deny one waiting call; resolves to the server's error text when refused. */
export async function decide(
  id: string,
  decision: { toolCallId: string; approve: boolean; reason?: string },
): Promise<string | undefined> {
  const response = await fetch(`api/sessions/${encodeURIComponent(id)}/approvals`, {
    method: 'POST',
    headers: { [TOKEN_HEADER]: token, 'content-type': 'application/json' },
    body: JSON.stringify(decision),
  })
  if (response.ok) return undefined
  const body = (await response.json().catch(() => ({}))) as { error?: string }
  return body.error ?? `refused (${response.status})`
}

/** Call `onChange` whenever the server says something changed; returns the closer. */
export function live(path: string, onChange: () => void): () => void {
  const source = new EventSource(path)
  source.addEventListener('change', onChange)
  return () => source.close()
}
