// Deterministic texts and a scripted tool run for the benches and the tests that share their
// scenarios (the prompt-cache scenarios of agent-loop and ai-sdk).
/** What the script reads of a request (testkit's `ScriptRequest` has it). */
interface ScriptedRequest {
  messages: ReadonlyArray<{ role: string; content: ReadonlyArray<{ type: string }> }>
}

/** A prose maker over `words`: `prose(seed, chars)` is exactly `chars` characters from word `seed`. */
export function proseOf(words: readonly string[]): (seed: number, chars: number) => string {
  return (seed, chars) => {
    let out = ''
    for (let i = seed; out.length < chars; i++) out += `${words[i % words.length]} `
    return out.slice(0, chars)
  }
}

/**
 * testkit's script of a tool run of `steps` steps: a `read_file` call per step (file 1, 2, …),
 * counted from the replies since the user's own words, then `answer`.
 */
export function toolStepScript(steps: number, answer: string) {
  return (req: ScriptedRequest) => {
    let replies = 0
    for (let i = req.messages.length - 1; i >= 0; i--) {
      const m = req.messages[i]!
      if (m.role === 'user' && m.content.some((b) => b.type === 'text')) break
      if (m.role === 'assistant') replies++
    }
    if (replies >= steps - 1) return answer
    return {
      text: `Reading file ${replies + 1}.`,
      toolUse: { name: 'read_file', input: { path: `src/file-${replies + 1}.ts` } },
    }
  }
}
