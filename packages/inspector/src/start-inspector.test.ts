import { request as httpRequest } from 'node:http'
import { ValidationError } from '@contextkit/core'
import { expect, test } from 'vitest'
import type { InspectorApproval } from './options.js'
import { CONTENT_SECURITY_POLICY, TOKEN_HEADER } from './security.js'
import { startInspector } from './start-inspector.js'
import { ECHO_THEN_WRITE, onCleanup, run, workspace } from './test-support.js'

const TOKEN = 'test-token-0123456789abcdef'

async function started(resume?: (id: string, a: Record<string, InspectorApproval>) => unknown) {
  const ws = await workspace()
  await run(ws, 'chat-1', ECHO_THEN_WRITE, { user: 'go' })
  const inspector = await startInspector({
    sessions: ws.sessions,
    traces: ws.traces,
    token: TOKEN,
    ...(resume ? { resume } : {}),
  })
  onCleanup(() => inspector.close())
  const origin = `http://127.0.0.1:${inspector.port}`
  return { ws, inspector, origin }
}

/** A raw request with any Host header (fetch does not let a caller set it). */
function raw(port: number, path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers }, (res) => {
      res.resume()
      resolve(res.statusCode ?? 0)
    })
    req.on('error', reject)
    req.end()
  })
}

test('prints its URL on 127.0.0.1 with the token; without the token: 401 and nothing else', async () => {
  const { inspector, origin } = await started()
  expect(inspector.url).toBe(`${origin}/?token=${TOKEN}`)
  for (const path of ['/', '/app.js', '/api/sessions', '/api/sessions/chat-1/steps']) {
    const res = await fetch(`${origin}${path}`)
    expect(res.status, path).toBe(401)
    expect(await res.text()).toBe('unauthorized\n')
  }
  const wrong = await fetch(`${origin}/api/sessions`, { headers: { [TOKEN_HEADER]: `${TOKEN}x` } })
  expect(wrong.status).toBe(401)
})

test('the printed URL sets a cookie and leaves the token out of the address; the page has a strict CSP', async () => {
  const { inspector, origin } = await started()
  const landing = await fetch(inspector.url, { redirect: 'manual' })
  expect(landing.status).toBe(303)
  expect(landing.headers.get('location')).toBe('/')
  const cookie = landing.headers.get('set-cookie') ?? ''
  expect(cookie).toMatch(/HttpOnly; SameSite=Strict; Path=\//)
  const page = await fetch(`${origin}/`, { headers: { cookie: cookie.split(';')[0] ?? '' } })
  expect(page.status).toBe(200)
  expect(page.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY)
  const html = await page.text()
  expect(html).not.toMatch(/<script>|<style|style=/)
  expect(html).toContain('<script type="module" src="app.js"></script>')
  const js = await fetch(`${origin}/app.js`, { headers: { cookie: cookie.split(';')[0] ?? '' } })
  expect(js.status).toBe(200)
  expect(js.headers.get('content-type')).toMatch(/^text\/javascript/)
})

test('a Host or Origin that is not its own is refused (DNS rebinding, cross-site forms)', async () => {
  const { inspector } = await started()
  const auth = { [TOKEN_HEADER]: TOKEN }
  expect(
    await raw(inspector.port, '/api/sessions', { ...auth, host: `127.0.0.1:${inspector.port}` }),
  ).toBe(200)
  expect(
    await raw(inspector.port, '/api/sessions', { ...auth, host: `localhost:${inspector.port}` }),
  ).toBe(200)
  expect(
    await raw(inspector.port, '/api/sessions', { ...auth, host: `evil.example:${inspector.port}` }),
  ).toBe(403)
  expect(await raw(inspector.port, '/api/sessions', { ...auth, host: '127.0.0.1:1' })).toBe(403)
  const host = `127.0.0.1:${inspector.port}`
  expect(
    await raw(inspector.port, '/api/sessions', { ...auth, host, origin: 'http://evil.example' }),
  ).toBe(403)
  expect(
    await raw(inspector.port, '/api/sessions', { ...auth, host, origin: `http://${host}` }),
  ).toBe(200)
})

test('a decision is a POST with the token in a header; it reaches resume and the session follows', async () => {
  const calls: Array<[string, Record<string, InspectorApproval>]> = []
  const { origin, ws } = await started(async (id, approvals) => {
    calls.push([id, approvals])
    await run(ws, id, [{ text: 'Not written, then.' }], { approvals })
  })
  const auth = { [TOKEN_HEADER]: TOKEN }
  const summary = (await (
    await fetch(`${origin}/api/sessions/chat-1`, { headers: auth })
  ).json()) as {
    pending: Array<{ toolCallId: string }>
  }
  const toolCallId = summary.pending[0]?.toolCallId ?? ''
  const post = (headers: Record<string, string>, body: unknown) =>
    fetch(`${origin}/api/sessions/chat-1/approvals`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    })
  const json = { 'content-type': 'application/json' }
  // the cookie alone never decides
  const landing = await fetch(`${origin}/?token=${TOKEN}`, { redirect: 'manual' })
  const cookie = (landing.headers.get('set-cookie') ?? '').split(';')[0] ?? ''
  expect((await post({ ...json, cookie }, { toolCallId, approve: true })).status).toBe(401)
  expect((await post({ ...json, ...auth }, { toolCallId: 'nope', approve: true })).status).toBe(409)
  expect((await post({ ...json, ...auth }, { toolCallId, approve: 'yes' })).status).toBe(400)
  expect((await fetch(`${origin}/api/sessions/chat-1/approvals`, { headers: auth })).status).toBe(
    404,
  )
  const ok = await post({ ...json, ...auth }, { toolCallId, approve: false, reason: 'not today' })
  expect(ok.status).toBe(202)
  await expect.poll(() => calls.length).toBe(1)
  expect(calls[0]).toEqual(['chat-1', { [toolCallId]: { approve: false, reason: 'not today' } }])
  await expect
    .poll(
      async () =>
        (
          (await (await fetch(`${origin}/api/sessions/chat-1`, { headers: auth })).json()) as {
            state: string
          }
        ).state,
    )
    .toBe('ended')
})

test('session ids go through the store rules; unknown ones are 404', async () => {
  const { origin } = await started()
  const auth = { [TOKEN_HEADER]: TOKEN }
  expect((await fetch(`${origin}/api/sessions/..%2F..%2Fetc`, { headers: auth })).status).toBe(400)
  expect((await fetch(`${origin}/api/sessions/a..b/steps`, { headers: auth })).status).toBe(400)
  expect((await fetch(`${origin}/api/sessions/missing`, { headers: auth })).status).toBe(404)
})

test('options are checked; another host than loopback is served only when asked, with a warning', async () => {
  const ws = await workspace()
  await expect(startInspector({ sessions: ws.sessions, prot: 1 } as never)).rejects.toThrow(
    ValidationError,
  )
  await expect(startInspector({ sessions: ws.sessions, token: 'short' })).rejects.toThrow(/token/)
  const lines: string[] = []
  const open = await startInspector({
    sessions: ws.sessions,
    host: '0.0.0.0',
    log: (l) => lines.push(l),
  })
  onCleanup(() => open.close())
  expect(lines).toEqual([
    expect.stringMatching(/^inspector: warning: serving on 0\.0\.0\.0, not loopback/),
  ])
  const quiet: string[] = []
  const local = await startInspector({ sessions: ws.sessions, log: (l) => quiet.push(l) })
  onCleanup(() => local.close())
  expect(quiet).toEqual([])
})
