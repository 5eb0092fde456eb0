// The child process of typecheck.ts: `tsc -p <tsconfig> --pretty false`, once per request, in one
// long-lived process. The TypeScript compiler API does what tsc does (the same config parsing, the
// same diagnostics in the same order, formatted as `--pretty false` prints them); what is saved is
// tsc's start: a fresh process loads and compiles TypeScript's 9 MB and runs its parser and checker
// cold every time, which was most of each check's 3 s of CPU. Every program is new; a file it
// reads is parsed anew unless one of the last programs parsed the same text at the same path with
// the same options (see `reuse`). Plain JavaScript so it starts without a loader.
import { createRequire } from 'node:module'
import { dirname } from 'node:path'
import process from 'node:process'

const ts = createRequire(import.meta.url)(process.argv[2])

/** What `tsc -p <config> --pretty false` prints, run in the config's folder, and its error count. */
function check(config) {
  const cwd = dirname(config)
  // where tsc would run (checks are one at a time: nothing else reads the directory meanwhile)
  process.chdir(cwd)
  let unrecoverable
  const parsed = ts.getParsedCommandLineOfConfigFile(
    config,
    { pretty: false },
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        unrecoverable = d
      },
    },
  )
  if (!parsed) return report([unrecoverable], cwd)
  const compilerHost = ts.createCompilerHost(parsed.options)
  // as tsc sets it (JSDoc in .ts files is parsed only where it can hold type errors)
  compilerHost.jsDocParsingMode = ts.JSDocParsingMode.ParseForTypeErrors
  compilerHost.getSourceFile = reuse(compilerHost, parsed.options)
  generation++
  const program = ts.createProgram({
    rootNames: parsed.fileNames,
    options: parsed.options,
    projectReferences: parsed.projectReferences,
    host: compilerHost,
    configFileParsingDiagnostics: ts.getConfigFileParsingDiagnostics(parsed),
  })
  return report(diagnosticsOf(program), cwd)
}

/**
 * Parsed files of the last few programs: path and parse options → the file and the program that
 * last used it. TypeScript's language service shares parsed (and bound) files between programs
 * the same way (its document registry: same path, same text, same settings); here that is
 * TypeScript's own `lib.*.d.ts` in every program, and the files a consumer's node-root check
 * reads again after its example's check.
 */
const parsedFiles = new Map()
/** How many programs back a parsed file is kept. */
const KEEP = 4
let generation = 0

function reuse(host, options) {
  const parse = host.getSourceFile
  const { configFilePath: _, ...settings } = options
  const optionsKey = JSON.stringify(settings)
  for (const [key, entry] of parsedFiles) {
    if (entry.used < generation - KEEP) parsedFiles.delete(key)
  }
  return (fileName, languageVersionOrOptions, onError, shouldCreateNewSourceFile) => {
    const o =
      typeof languageVersionOrOptions === 'object'
        ? languageVersionOrOptions
        : { languageVersion: languageVersionOrOptions }
    const key = JSON.stringify([
      optionsKey,
      fileName,
      o.languageVersion,
      o.impliedNodeFormat,
      o.jsDocParsingMode,
    ])
    const entry = parsedFiles.get(key)
    if (entry && !shouldCreateNewSourceFile && host.readFile(fileName) === entry.file.text) {
      entry.used = generation
      return entry.file
    }
    const file = parse(fileName, languageVersionOrOptions, onError, shouldCreateNewSourceFile)
    if (file) parsedFiles.set(key, { file, used: generation })
    return file
  }
}

/** tsc's order (emitFilesAndReportErrors): each later kind only when the earlier found nothing. */
function diagnosticsOf(program) {
  const all = [...program.getConfigFileParsingDiagnostics()]
  const base = all.length
  all.push(...program.getSyntacticDiagnostics())
  if (all.length === base) {
    all.push(...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics())
    if (all.length === base) all.push(...program.getSemanticDiagnostics())
  }
  all.push(...program.emit().diagnostics)
  return ts.sortAndDeduplicateDiagnostics(all)
}

function report(diagnostics, cwd) {
  const host = {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => cwd,
    getNewLine: () => '\n',
  }
  return {
    output: diagnostics.map((d) => ts.formatDiagnostic(d, host)).join(''),
    errors: diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error).length,
  }
}

process.on('message', ({ id, config }) => {
  try {
    process.send({ id, ...check(config) })
  } catch (error) {
    process.send({ id, crash: String(error?.stack ?? error) })
  }
})
process.on('disconnect', () => process.exit(0))
