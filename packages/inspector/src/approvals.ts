import { describeError } from '@contextkit/core'
import * as z from 'zod'
import type { InspectorData } from './inspector-data.js'
import type { InspectorApproval, InspectorResume } from './options.js'

/** The body of `POST …/approvals`: one decision on one waiting call. */
export const DecisionSchema = z.strictObject({
  toolCallId: z.string().min(1).max(200),
  approve: z.boolean(),
  reason: z.string().max(4000).optional(),
})

/** A decision the page sent. */
export type Decision = z.infer<typeof DecisionSchema>

/** What became of a decision: taken (the run resumes) or why not, with an HTTP status. */
export type DecisionOutcome = { ok: true } | { ok: false; status: number; message: string }

/**
 * Hands decisions to the app's `resume` and remembers which sessions it is running (the page
 * shows them as running) and how the last resume of each failed.
 */
export class Approvals {
  readonly #data: InspectorData
  readonly #resume: InspectorResume | undefined
  readonly #failures = new Map<string, string>()

  constructor(data: InspectorData, resume: InspectorResume | undefined) {
    this.#data = data
    this.#resume = resume
  }

  /** Whether the app gave a way to resume runs. */
  get enabled(): boolean {
    return this.#resume !== undefined
  }

  /** How the last resume of `id` failed, if it did. */
  failure(id: string): string | undefined {
    return this.#failures.get(id)
  }

  /** Check the decision against the session's waiting calls and start the resume. */
  async decide(id: string, decision: Decision): Promise<DecisionOutcome> {
    const resume = this.#resume
    if (!resume) {
      return { ok: false, status: 501, message: 'this inspector was started without resume' }
    }
    if (this.#data.active.has(id)) {
      return { ok: false, status: 409, message: 'the session is running' }
    }
    const summary = await this.#data.summary(id)
    if (!summary.pending.some((p) => p.toolCallId === decision.toolCallId)) {
      return { ok: false, status: 409, message: 'no such call waits for a decision' }
    }
    const answer: InspectorApproval = decision.approve
      ? { approve: true }
      : { approve: false, ...(decision.reason ? { reason: decision.reason } : {}) }
    this.#data.active.add(id)
    this.#failures.delete(id)
    void Promise.resolve()
      .then(() => resume(id, { [decision.toolCallId]: answer }))
      .catch((error: unknown) => {
        this.#failures.set(id, describeError(error))
      })
      .finally(() => {
        this.#data.active.delete(id)
      })
    return { ok: true }
  }
}
