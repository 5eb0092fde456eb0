import { parseWith } from '@contextkit/core'
import * as z from 'zod'
import { checkRelativePath } from './path-checks.js'

/** Where a file reference came from, in the order {@link collectReferences} visits them. */
export type ReferenceSource = 'selection' | 'endpoint' | 'model'

/** A file to preload, relative to the root. */
export interface FileReference {
  /** Relative path as given (normalized when it is a valid path). */
  path: string
  /** The first source that named it. */
  source: ReferenceSource
}

const FileField = z.string().nullish()

/** One selected element (only `sourceFile` matters here; other fields are kept). */
export const SelectionContextSchema = z.looseObject({ sourceFile: FileField })
/** A backend structure map: endpoints and models, each with an optional `file`. */
export const BackendMapSchema = z.looseObject({
  endpoints: z.array(z.looseObject({ file: FileField })).nullish(),
  models: z.array(z.looseObject({ file: FileField })).nullish(),
})

const ContextsSchema = z.array(SelectionContextSchema).nullish()
const MapSchema = BackendMapSchema.nullish()

/**
 * The files a turn refers to, in the seed's order: the explicit selection first
 * (`contexts[].sourceFile`), then backend endpoints (`backendMap.endpoints[].file`), then models
 * (`backendMap.models[].file`). Each path appears once (paths are compared after normalizing,
 * so `./src/a.ts` and `src/a.ts` are the same); empty and missing entries are skipped.
 *
 * Inputs are `unknown` and parsed with zod: `null`/`undefined` mean "none"; any other shape
 * throws a `ValidationError` naming the bad field.
 */
export function collectReferences(contexts: unknown, backendMap: unknown): FileReference[] {
  const selection = parseWith(ContextsSchema, contexts, 'contexts') ?? []
  const map = parseWith(MapSchema, backendMap, 'backendMap')
  const out: FileReference[] = []
  const seen = new Set<string>()
  const add = (file: string | null | undefined, source: ReferenceSource) => {
    if (typeof file !== 'string' || file.trim().length === 0) return
    const checked = checkRelativePath(file)
    const key = 'segments' in checked ? checked.path : file
    if (seen.has(key)) return
    seen.add(key)
    out.push({ path: key, source })
  }
  for (const ctx of selection) add(ctx.sourceFile, 'selection')
  for (const ep of map?.endpoints ?? []) add(ep.file, 'endpoint')
  for (const model of map?.models ?? []) add(model.file, 'model')
  return out
}
