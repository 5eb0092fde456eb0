// The settings every vitest project of the repository shares (each `vitest.config.ts` of
// packages/*, examples and package-tests builds its project with `testProject`).
import { fileURLToPath } from 'node:url'
import { defineProject, type TestProjectInlineConfiguration } from 'vitest/config'

type ProjectTest = NonNullable<TestProjectInlineConfiguration['test']>

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url))

/**
 * A vitest project named `name` running `src/**\/*.test.ts`, with:
 * - the run's fast-check seed (`fc-seed.ts`, see the root config);
 * - a 30 s test timeout: tests are slow only under load (CI's 2 cores with a busy loop beside),
 *   and the default 5 s is an idle machine's;
 * - `isolate: false`: the files of one worker share its module graph. Each file's own module
 *   loading (vitest's "import", "setup" and "transform" phases) was about 290 of the suite's
 *   1,800 worker-seconds in a fresh-clone CI run; without isolation a module is loaded once per
 *   worker. Test files must leave no global state behind (the default model registry lives on
 *   `globalThis`, shared with any built copy of core another file imported: match its errors by
 *   name and code, not `instanceof`).
 * - its benchmarks under `bench/`.
 * `test` adds to or overrides these.
 */
export function testProject(name: string, test: ProjectTest = {}) {
  return defineProject({
    test: {
      name,
      include: ['src/**/*.test.ts'],
      setupFiles: [here('./fc-seed.ts')],
      testTimeout: 30_000,
      isolate: false,
      benchmark: { include: ['bench/**/*.bench.ts'] },
      ...test,
    },
  })
}

/** The global setup that gives the tests one real PostgreSQL server (see `postgres-global-setup.ts`). */
export const POSTGRES_GLOBAL_SETUP = here('./postgres-global-setup.ts')
