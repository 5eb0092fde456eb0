/**
 * Typechecking a consumer project's files as its user would with `tsc -p <tsconfig>`: the
 * tsconfig is written into the project, and `typecheck-child.mjs` runs the compiler on it, one
 * config at a time in one long-lived process (a fresh `tsc` per check spent most of its time
 * starting: loading TypeScript and warming its parser and checker, about 3 s of CPU each, 34
 * times per run).
 */
import { type ChildProcess, fork } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { Consumer, RunResult } from './consumer.js'
import { ROOT } from './workspace.js'

const CHILD = join(ROOT, 'package-tests', 'src', 'typecheck-child.mjs')
/** The TypeScript the package tests depend on (what `tsc` was before). */
const TYPESCRIPT = createRequire(import.meta.url).resolve('typescript')

interface Job {
  config: string
  timeoutMs: number
  resolve: (result: { output: string; errors: number }) => void
  reject: (error: Error) => void
}

interface Reply {
  id: number
  output?: string
  errors?: number
  crash?: string
}

/**
 * One child process that runs `tsc -p` for one config after the other, started on first use
 * and again after it died or ran out of time.
 */
class Typechecker {
  private child: ChildProcess | undefined
  private readonly queue: Job[] = []
  private current: { id: number; job: Job; timer: NodeJS.Timeout } | undefined
  private nextId = 0

  /** tsc's output for `config` and its number of errors. */
  check(config: string, timeoutMs: number): Promise<{ output: string; errors: number }> {
    return new Promise((resolve, reject) => {
      this.queue.push({ config, timeoutMs, resolve, reject })
      this.pump()
    })
  }

  /** Stop the child (pending checks are rejected). */
  close(): void {
    for (const job of this.queue.splice(0)) job.reject(new Error('typechecker closed'))
    this.stop(new Error('typechecker closed'))
  }

  private pump(): void {
    if (this.current) return
    const job = this.queue.shift()
    if (!job) return
    const child = this.child ?? this.start()
    const id = this.nextId++
    const timer = setTimeout(
      () => this.stop(new Error(`tsc -p ${job.config} ran out of time (${job.timeoutMs} ms)`)),
      job.timeoutMs,
    )
    this.current = { id, job, timer }
    child.send({ id, config: job.config })
  }

  private start(): ChildProcess {
    const child = fork(CHILD, [TYPESCRIPT], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] })
    let stderr = ''
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000)
    })
    child.on('message', (reply: Reply) => this.settle(reply))
    child.on('exit', (code, signal) => {
      if (this.child !== child) return
      this.stop(new Error(`the typecheck process exited (${code ?? signal}):\n${stderr}`))
    })
    this.child = child
    return child
  }

  private settle(reply: Reply): void {
    const current = this.current
    if (!current || current.id !== reply.id) return
    clearTimeout(current.timer)
    this.current = undefined
    if (reply.crash !== undefined) current.job.reject(new Error(reply.crash))
    else current.job.resolve({ output: reply.output ?? '', errors: reply.errors ?? 0 })
    this.pump()
  }

  /** Kill the child and fail the check it was running; the queue goes on in a new child. */
  private stop(error: Error): void {
    const { child, current } = this
    this.child = undefined
    this.current = undefined
    child?.kill('SIGKILL')
    if (current) {
      clearTimeout(current.timer)
      current.job.reject(error)
    }
    if (this.queue.length > 0) this.pump()
  }
}

let shared: Typechecker | undefined

/** Stop the typecheck process of this test file (call it in `afterAll`). */
export function stopTypechecker(): void {
  shared?.close()
  shared = undefined
}

/**
 * Put `consumer.types` (`@types/node`, and a peer's such as `@types/pg`: what a user who
 * typechecks adds to what the README's lines install) in the consumer's `node_modules/@types`,
 * each a link to the workspace's copy: the version its devDependencies pin, found by the compiler
 * where it finds an installed one (`import pg from 'pg'` resolves to `@types/pg`).
 *
 * Why links, not the user's `npm i -D @types/node@<pinned>`: that install changes nothing the
 * checks look at (the app's `@contextkit` packages and their resolution are the README lines'),
 * and measured on the 13 apps it cost 1.8 CPU-s each (23 a run); each app's own copy of
 * `@types/node` was also parsed anew by every typecheck, where the links' one real path is
 * parsed once per resolution mode (the compiler process used 45 CPU-s instead of 34). Why not
 * `typeRoots`: it serves `types: ['node']` but not `import pg from 'pg'` under nodenext, which
 * resolves through `node_modules/@types/pg` only.
 */
export async function linkTypes(consumer: Consumer): Promise<void> {
  for (const name of consumer.types) {
    const from = [consumer.pkg.dir, ROOT]
      .map((dir) => join(dir, 'node_modules', name))
      .find((dir) => existsSync(dir))
    if (!from) throw new Error(`${name} is not installed in the workspace (pnpm install)`)
    const to = join(consumer.dir, 'node_modules', name)
    await rm(to, { recursive: true, force: true }) // as `npm i -D <it>@<pinned>` replaces a copy
    await mkdir(dirname(to), { recursive: true })
    await symlink(await realpath(from), to, 'dir')
  }
}

/**
 * Typecheck the README example, verbatim, as the consumer's own `example.ts` (written by
 * `consumerIn`, its `@types` linked by {@link linkTypes}) with `moduleResolution` `nodenext` (module `nodenext`) or `bundler`
 * (module `preserve`), strict. Declaration files are not checked themselves (`skipLibCheck`, as
 * most projects set it: third-party ones such as PGlite's need DOM and Emscripten types); that
 * ours import nothing their package does not depend on is checked in shape.test.ts.
 * Resolves to tsc's output; rejects with it when there are errors.
 */
export function typecheckExample(
  consumer: Consumer,
  resolution: 'nodenext' | 'bundler',
): Promise<RunResult> {
  return typecheckFile(consumer, resolution, 'example.ts')
}

/**
 * Typecheck `file` of the consumer project as {@link typecheckExample} does the example (each
 * file with its own tsconfig, written into the project: `tsc -p <it>` there repeats the check).
 */
export async function typecheckFile(
  consumer: Consumer,
  resolution: 'nodenext' | 'bundler',
  file: string,
): Promise<RunResult> {
  const config = {
    compilerOptions: {
      module: resolution === 'nodenext' ? 'nodenext' : 'preserve',
      moduleResolution: resolution,
      target: 'es2022',
      lib: ['es2023'],
      types: ['node'],
      strict: true,
      noEmit: true,
      skipLibCheck: true,
    },
    files: [file],
  }
  const tsconfig =
    file === 'example.ts'
      ? `tsconfig.${resolution}.json`
      : `tsconfig.${resolution}.${file.replace(/\.ts$/, '')}.json`
  const path = join(consumer.dir, tsconfig)
  await writeFile(path, `${JSON.stringify(config, null, 2)}\n`)
  shared ??= new Typechecker()
  const { output, errors } = await shared.check(path, 240_000)
  if (errors > 0) {
    throw new Error(`tsc -p ${tsconfig} --pretty false (in ${consumer.dir}) failed:\n${output}`)
  }
  return { stdout: output, stderr: '' }
}
