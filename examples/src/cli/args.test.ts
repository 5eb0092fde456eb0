import { expect, test } from 'vitest'
import { DEMO_FLAGS, parseDemoArgs } from './args.js'
import { DemoUsageError } from './errors.js'

test('flags and the message (positionals joined, quotes optional)', () => {
  expect(parseDemoArgs(['--workspace', 'ws', '--json', 'What', 'files?'])).toEqual({
    message: 'What files?',
    workspace: 'ws',
    json: true,
    help: false,
    init: false,
  })
  expect(
    parseDemoArgs([
      '--session=s1',
      '--model',
      'claude-sonnet-4-6',
      '--base-url',
      'http://127.0.0.1:8080/v1',
      '--store',
      'pglite:db',
      '--context-file',
      'a.csv',
      'hi',
    ]),
  ).toMatchObject({
    session: 's1',
    model: 'claude-sonnet-4-6',
    baseUrl: 'http://127.0.0.1:8080/v1',
    store: 'pglite:db',
    contextFile: 'a.csv',
    message: 'hi',
  })
  expect(parseDemoArgs([])).toEqual({ json: false, help: false, init: false })
  expect(parseDemoArgs(['--allow-outside-context-file']).allowOutsideContextFile).toBe(true)
  expect(parseDemoArgs(['-h']).help).toBe(true)
  expect(DEMO_FLAGS).toContain('--base-url')
})

test('an unknown flag names the closest known one; a missing or unwanted value is said', () => {
  const problem = (argv: string[]) => {
    try {
      parseDemoArgs(argv)
    } catch (error) {
      expect(DemoUsageError.isInstance(error)).toBe(true)
      return {
        message: (error as DemoUsageError).message,
        problem: (error as DemoUsageError).problem,
      }
    }
    throw new Error('expected a DemoUsageError')
  }
  expect(problem(['--jsno'])).toEqual({
    problem: 'unknown_flag',
    message: 'unknown flag --jsno (did you mean --json?)',
  })
  expect(problem(['--base-ulr=http://x'])).toMatchObject({
    message: 'unknown flag --base-ulr (did you mean --base-url?)',
  })
  expect(problem(['--verbose']).message).toBe(
    'unknown flag --verbose (known: --workspace, --session, --model, --message-file, --init, --base-url, --provider, --store, --context-file, --allow-outside-context-file, --approve, --deny, --json, --inspect, --config, --workers, --sessions, --help)',
  )
  expect(problem(['--workspace'])).toEqual({
    problem: 'bad_flag',
    message: '--workspace needs a value',
  })
  expect(problem(['--json=yes'])).toEqual({ problem: 'bad_flag', message: '--json takes no value' })
  expect(problem(['--model='])).toEqual({ problem: 'bad_flag', message: '--model needs a value' })
})

test('--workers N [--sessions K]: a Postgres store, whole numbers in range, none of the flags it does not take', () => {
  const store = ['--store', 'postgres://u@127.0.0.1/db']
  expect(parseDemoArgs(['--workers', '2', ...store]).workers).toEqual({ processes: 2, sessions: 4 })
  expect(
    parseDemoArgs(['--workers', '3', '--sessions', '7', '--inspect', ...store, 'hi']),
  ).toMatchObject({ workers: { processes: 3, sessions: 7 }, inspect: true, message: 'hi' })
  expect(
    parseDemoArgs(['--workers', '1', '--store', 'postgres:postgresql://h/db']).workers,
  ).toEqual({ processes: 1, sessions: 4 })
  const message = (argv: string[]) => {
    try {
      parseDemoArgs(argv)
    } catch (error) {
      expect(DemoUsageError.isInstance(error)).toBe(true)
      return (error as DemoUsageError).message
    }
    throw new Error('expected a DemoUsageError')
  }
  expect(message(['--workers', '2'])).toBe(
    '--workers needs --store postgres:<url>: the workers share the job queue and the sessions through a Postgres server',
  )
  expect(message(['--workers', '2', '--store', 'pglite:db'])).toContain(
    '--workers needs --store postgres:<url>',
  )
  expect(message(['--workers', '0', ...store])).toBe(
    '--workers must be a whole number from 1 to 16, got "0"',
  )
  expect(message(['--workers', '2.5', ...store])).toContain('got "2.5"')
  expect(message(['--workers', '2', '--sessions', '101', ...store])).toBe(
    '--sessions must be a whole number from 1 to 100, got "101"',
  )
  expect(message(['--sessions', '3', ...store])).toBe(
    '--sessions goes with --workers N (the sessions the workers run)',
  )
  for (const flag of [
    ['--json'],
    ['--session', 'a'],
    ['--base-url', 'http://x'],
    ['--config', 'c.json'],
  ]) {
    expect(message(['--workers', '2', ...store, ...flag])).toBe(
      `${flag[0]} does not go with --workers (it queues new sessions, answered offline or by Claude, and prints text)`,
    )
  }
})
