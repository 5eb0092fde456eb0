import { join } from 'node:path'
import { type Message, type SessionWarning, sessionMessages } from '@contextkit/core'
import { type JsonlSessionStore, jsonlSessionStore } from '@contextkit/store-files'

/**
 * Where the embedded runner keeps sessions: `<workspace>/.contextkit/sessions/<id>.jsonl`,
 * confined to the workspace (a `.contextkit/` planted as a symlink is refused, not followed).
 */
export function runnerSessionStore(workspace: string): JsonlSessionStore {
  return jsonlSessionStore(join(workspace, '.contextkit', 'sessions'), { root: workspace })
}

/** The messages of a stored session, in order, and what the store skipped while loading. */
export async function loadSessionMessages(
  store: JsonlSessionStore,
  sessionId: string,
): Promise<{ messages: Message[]; warnings: SessionWarning[] }> {
  const { entries, warnings } = await store.load(sessionId)
  return { messages: sessionMessages(entries), warnings }
}
