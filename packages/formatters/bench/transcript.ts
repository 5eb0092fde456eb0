import { XmlStreamParser } from '../src/index.js'
/** A deterministic mixed transcript (prose with stray `<`, thinking, tool calls) of `bytes` length. */
export function mixedTranscript(bytes: number): string {
  const parts = [
    'The function returns early if a < b, so we check the bounds first. ',
    'Here is some more prose about <things> that look like tags but are not. ',
    '<thinking>Let me think about the cache: hits < misses means the key is wrong.</thinking>',
    '\n<function_calls>\n<invoke name="read_file">\n<parameter name="path">src/app.ts</parameter>\n<parameter name="limit">200</parameter>\n</invoke>\n</function_calls>\n',
    'Result looks fine; if (x && y) { return a <= b } else { call(); }\n',
    '<function_calls>\n<invoke name=\'write_file\'>\n<parameter name="content">export const x = 1 &lt; 2 &amp;&amp; y\n</parameter>\n</invoke>\n</function_calls>\n',
  ]
  return repeatTo(parts, bytes)
}

const FILE = [
  "import http from 'node:http'",
  "import { readFile } from 'node:fs/promises'",
  '',
  'const port = Number(process.env.PORT ?? 8080)',
  'const server = http.createServer(async (req, res) =&gt; {',
  "  if (req.url === '/health') return res.end('ok')",
  "  if (req.url?.startsWith('/static/') &amp;&amp; req.method === 'GET') {",
  "    const body = await readFile('public' + req.url.slice(7), 'utf8').catch(() =&gt; null)",
  '    if (body !== null) return res.end(body)',
  '  }',
  '  for (let i = 0; i &lt; retries; i++) await tick()',
  '  res.statusCode = 404',
  '  res.end()',
  '})',
  "server.listen(port, () =&gt; console.log('listening on', port))",
].join('\n')

/**
 * A realistic agent transcript of `bytes` length: prose (with `<` and `&` in it), thinking,
 * and tool calls whose values span many lines (a whole file written back), as a coding agent
 * produces them.
 */
export function realisticTranscript(bytes: number): string {
  const parts = [
    'I will look at the configuration first, because the error says the port is already in use (so a < b is not the issue here). ',
    '<thinking>The user wants the server fixed.\nFirst read the config, then check which process holds port 8080.\nIf hits < misses && the key changed, the cache is stale; otherwise the listener is wrong.\nI should not restart anything before reading the file.</thinking>\n',
    'Let me read the file.\n<function_calls>\n<invoke name="read_file">\n<parameter name="path">src/server.ts</parameter>\n<parameter name="limit">200</parameter>\n</invoke>\n</function_calls>\n',
    `The file shows the listener. I will patch it so the port comes from the environment.\n<function_calls>\n<invoke name="write_file">\n<parameter name="path">src/server.ts</parameter>\n<parameter name="content">${FILE}\n</parameter>\n</invoke>\n</function_calls>\n`,
    'Done. The server now reads PORT from the environment; requests to /static/ are served from public/, and `a && b` still holds for the health check.\n\n',
    '<thinking>Check the tests next: npm test runs vitest; a failing snapshot would mean the 404 body changed.</thinking>\n<function_calls>\n<invoke name="run">\n<parameter name="command">npm test -- --run src/server.test.ts</parameter>\n<parameter name="timeout">120</parameter>\n</invoke>\n</function_calls>\n',
  ]
  return repeatTo(parts, bytes)
}

function repeatTo(parts: readonly string[], bytes: number): string {
  const out: string[] = []
  let length = 0
  for (let i = 0; length < bytes; i++) {
    const part = parts[i % parts.length]!
    out.push(part)
    length += part.length
  }
  return out.join('').slice(0, bytes)
}

/** Cut text into chunks of `size` characters. */
export function chunked(text: string, size: number): string[] {
  const out: string[] = []
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size))
  return out
}

/**
 * Milliseconds of CPU time used by this process (all its threads, the garbage collector's
 * included): a clock for benchmarks whose runs differ in length, since on a shared machine a
 * long run is preempted more often than a short one and a wall-clock ratio would grow with load.
 */
export function cpuNow(): number {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

/** The one tool the scaling benches declare. */
export const tools = [
  {
    name: 'read_file',
    description: '',
    inputSchema: { type: 'object' as const, properties: { limit: { type: 'integer' } } },
  },
]

/**
 * Stream `text` in `size`-char chunks cut as they arrive (fresh strings, like a network stream;
 * no array of a million chunks stays alive for the garbage collector to trace).
 */
export function streamAll(text: string, size: number): number {
  const parser = new XmlStreamParser({ tools })
  let events = 0
  for (let i = 0; i < text.length; i += size)
    events += parser.processChunk(text.slice(i, i + size)).length
  return events + parser.flush().length
}
