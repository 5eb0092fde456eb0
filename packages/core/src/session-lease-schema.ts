// The zod schema of a lease request, for a store that checks what `acquireLease` is asked with
// zod (from `@contextkit/core/schemas`). Core's own lease code checks it without zod
// (session-lease-hold.ts), so the loop that takes a session's lease never loads zod.
import * as z from 'zod'
import { MAX_SESSION_LEASE_TTL_MS } from './session-lease.js'

/** Zod schema of a `SessionLeaseRequest` (what `SessionLeaseStore.acquireLease` is asked for). */
export const SessionLeaseRequestSchema = z.strictObject({
  runId: z.string().min(1).max(200),
  ttlMs: z.number().int().min(1).max(MAX_SESSION_LEASE_TTL_MS).optional(),
})
