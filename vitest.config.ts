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
    projects: ['packages/*', 'examples', 'package-tests'],
  },
})
