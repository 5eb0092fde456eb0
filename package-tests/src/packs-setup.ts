/**
 * The package tests' global setup: one folder per test run for the packed packages, shared by
 * every file that needs them (see `packs.ts`), removed when the run ends. Nothing is packed here:
 * a run of files that need no tarballs (shape, bundles) pays nothing.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestProject } from 'vitest/node'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The folder of this run's packed packages (`<it>/contextkit/packs`, made on first use). */
    packsBase: string
  }
}

/** Make the run's folder, hand it to the test files, remove it at the end. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const base = await mkdtemp(join(tmpdir(), 'ck-packs-'))
  project.provide('packsBase', base)
  return () => rm(base, { recursive: true, force: true })
}
