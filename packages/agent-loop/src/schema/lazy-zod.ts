// zod itself, for the two things the loop asks of it at run time: the JSON Schema of a schema that
// cannot convert itself (zod before 4.2, `zod/mini`), and the zod schemas `jsonSchemaTool` wraps
// Ajv in. This file is the build for bundlers (the `default` condition), which imports zod as
// before; the Node build (`dist/bundle/`) serves lazy-zod.node-build.ts in its place (a twin,
// see `nodeBuildTwins` in tsup.base.ts), which loads zod on the first call instead, so that a cold
// `import('@contextkit/agent-loop')` never loads zod (issue 46).
import * as z from 'zod'

/**
 * The parts of zod the loop calls (named one by one, so a bundler keeps only these of zod: the
 * whole namespace would bring every locale with it).
 */
export type LazyZod = Pick<typeof z, 'toJSONSchema' | 'unknown' | 'object' | 'NEVER'>

/** zod, as the application has it (one instance: its own `import('zod')` gives the same). */
export function zodNow(): LazyZod {
  return { toJSONSchema: z.toJSONSchema, unknown: z.unknown, object: z.object, NEVER: z.NEVER }
}
