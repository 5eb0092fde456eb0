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
  let out = ''
  let i = 0
  while (out.length < bytes) {
    out += parts[i % parts.length]
    i++
  }
  return out
}

/** Cut text into chunks of `size` characters. */
export function chunked(text: string, size: number): string[] {
  const out: string[] = []
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size))
  return out
}
