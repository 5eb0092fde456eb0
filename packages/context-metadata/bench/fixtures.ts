/** Deterministic generators of benchmark inputs. */

/** ~`bytes` of NDJSON: social-feed-like records. */
export function ndjson(bytes: number): string {
  const parts: string[] = []
  let size = 0
  for (let i = 0; size < bytes; i++) {
    const line = JSON.stringify({
      author: `did:plc:user${i % 997}`,
      text: `Post number ${i}: Arsenal win ${i % 5}-${i % 3}, what a game! #afc`,
      createdAt: new Date(1_700_000_000_000 + i * 60_000).toISOString(),
      authorProfile: { displayName: `User ${i % 997}`, followers: i % 1000 },
      hashtags: ['afc', 'football'],
    })
    parts.push(line)
    size += line.length + 1
  }
  return parts.join('\n') + '\n'
}

/** ~`bytes` of CSV where every third record has a quoted field with a newline and a comma. */
export function csvQuotedNewlines(bytes: number): string {
  const parts: string[] = ['id,name,comment,score']
  let size = parts[0]!.length
  for (let i = 0; size < bytes; i++) {
    const comment =
      i % 3 === 0 ? `"line one, with comma\nline two ""quoted"" ${i}"` : `plain comment ${i}`
    const row = `${i},"Name ${i}",${comment},${(i * 7) % 100}`
    parts.push(row)
    size += row.length + 1
  }
  return parts.join('\n') + '\n'
}

/** ~`bytes` (at most) of a pretty-printed (2-space) JSON array of records. */
export function prettyJsonArray(bytes: number): string {
  const make = (i: number) => ({
    id: i,
    title: `Item ${i} with a "quote" and a \\ backslash`,
    tags: ['a', 'b', String(i % 10)],
    owner: { name: `Owner ${i % 50}`, email: `owner${i % 50}@example.com` },
    active: i % 2 === 0,
  })
  const probe = JSON.stringify(
    Array.from({ length: 1000 }, (_, i) => make(i)),
    null,
    2,
  )
  const n = Math.floor((1000 * bytes) / probe.length)
  return JSON.stringify(
    Array.from({ length: n }, (_, i) => make(i)),
    null,
    2,
  )
}

/** ~`bytes` of a TopoJSON-like object: a small header, a huge `arcs` array, keys after it. */
export function topologyObject(bytes: number): string {
  const arcs: number[][][] = []
  let size = 0
  for (let i = 0; size < bytes; i++) {
    const arc = [
      [(i * 37) % 99991, (i * 53) % 49999],
      [i % 97, -(i % 89)],
      [-(i % 13), i % 7],
    ]
    arcs.push(arc)
    size += JSON.stringify(arc).length + 1
  }
  return JSON.stringify({
    type: 'Topology',
    objects: { land: { type: 'GeometryCollection', geometries: [] } },
    arcs,
    bbox: [-180, -85.6, 180, 83.6],
    transform: { scale: [0.0036, 0.0017], translate: [-180, -85.6] },
  })
}

/** ~`bytes` of JSONL whose every line is over 64 KB (chat transcripts with long texts). */
export function longLineJsonl(bytes: number): string {
  const lines: string[] = []
  let size = 0
  for (let i = 0; size < bytes; i++) {
    const line = JSON.stringify({
      id: i,
      role: i % 2 ? 'assistant' : 'user',
      text: `turn ${i} `.repeat(9000),
    })
    lines.push(line)
    size += line.length + 1
  }
  return `${lines.join('\n')}\n`
}
