import { defineConfig } from 'tsup'
import { packageBuild } from '../../tsup.base.js'

export default defineConfig({
  ...packageBuild,
  entry: {
    index: 'src/index.ts',
    anthropic: 'src/anthropic/index.ts',
    completions: 'src/completions/index.ts',
    testing: 'src/testing/index.ts',
  },
  external: ['@anthropic-ai/sdk'],
})
