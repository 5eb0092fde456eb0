import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'
import { seedFromEnv } from './test-utils/fc-seed.js'

// One fast-check seed per test run: taken from FC_SEED to replay a failure, else fresh. Every
// worker reads it back from the environment (test-utils/fc-seed.ts is each project's setup file).
const seed = seedFromEnv() ?? Math.floor(Math.random() * 2 ** 31)
process.env.FC_SEED = String(seed)
console.log(
  `fast-check seed ${seed} (replay a property failure: FC_SEED=${seed} pnpm vitest run …)`,
)

export default defineConfig({
  test: {
    // One file per core (vitest's default is a core less: 1 on CI's 2 cores, which ran the 312
    // files one after another; many of them wait on child processes, servers and package
    // installs). One more than the cores ran the crash tests past their budgets on a loaded
    // machine. CONTEXTKIT_TEST_WORKERS overrides it.
    maxWorkers: Number(process.env.CONTEXTKIT_TEST_WORKERS ?? availableParallelism()),
    projects: ['packages/*', 'examples', 'package-tests'],
  },
})
