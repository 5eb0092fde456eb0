#!/usr/bin/env node
// A package's TypeScript step of `build`, run in its folder after tsup: one TypeScript program
// over everything `tsconfig.json` includes (sources, tests, benches, configs) reports every type
// error, and the same program writes the declarations of what `tsconfig.build.json` publishes
// (its `files` and what they import) into its `outDir`, as `tsc -p tsconfig.build.json` would.
// It replaces two programs (the build's declarations, then `tsc --noEmit` with the tests), which
// type-checked the sources twice: a third of the CPU of CI's build step. A package's `build` is
// so also its typecheck (packages have no `typecheck` script of their own).
//
// Prints every error as tsc prints it and exits 1; the declarations are written even then, as
// tsc writes them.
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import ts from 'typescript'

const dir = process.cwd()

/** A tsconfig of `dir`, parsed as `tsc -p` parses it; exits on a config error. */
function parseConfig(name) {
  const host = { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => fail([d]) }
  const parsed = ts.getParsedCommandLineOfConfigFile(join(dir, name), {}, host)
  if (parsed.errors.length > 0) fail(parsed.errors)
  return parsed
}

const formatHost = {
  getCanonicalFileName: (f) => f,
  getCurrentDirectory: () => dir,
  getNewLine: () => '\n',
}

/** Print diagnostics as tsc does (with colours on a terminal). */
function report(diagnostics) {
  const format = process.stdout.isTTY
    ? ts.formatDiagnosticsWithColorAndContext
    : ts.formatDiagnostics
  process.stdout.write(format(diagnostics, formatHost))
}

function fail(diagnostics) {
  report(diagnostics)
  process.exit(1)
}

/**
 * The files `build` publishes declarations of: the build config's `files` and every file of the
 * package they import (type-only imports and re-exports included), in the order TypeScript's own
 * program for them would hold them: each file after the files it imports.
 */
function publishedSources(program, entries) {
  const options = program.getCompilerOptions()
  const seen = new Set()
  const ordered = []
  const visit = (file) => {
    if (seen.has(file)) return
    seen.add(file)
    const source = program.getSourceFile(file)
    for (const { fileName } of ts.preProcessFile(source.text, true, true).importedFiles) {
      const resolved = ts.resolveModuleName(fileName, file, options, ts.sys).resolvedModule
      if (!resolved || resolved.isExternalLibraryImport) continue
      const found = resolve(resolved.resolvedFileName)
      if (!found.endsWith('.d.ts') && program.getSourceFile(found)) visit(found)
    }
    ordered.push(source)
  }
  for (const entry of entries) visit(resolve(entry))
  return ordered
}

/** `<dir>/src/a/b.ts` → `<outDir>/a/b.d.ts`, for a source under the build config's `rootDir`. */
function declarationPath(source, build) {
  const outDir = build.options.outDir ?? dir
  const path = relative(build.options.rootDir ?? dir, source.fileName)
  return join(outDir, path.replace(/\.([cm]?)tsx?$/, '.d.$1ts'))
}

/**
 * The checks of `tsc` in its order (syntax, options, globals, then each file), with the published
 * files checked first, as their own program checks them: the order in which the checker first
 * meets a type decides how the declarations list a union's members, so the tests cannot reorder
 * them. Then their declarations are written, and the rest of the package is checked.
 */
function checkAndDeclare(program, build) {
  const diagnostics = [
    ...program.getSyntacticDiagnostics(),
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
  ]
  const published = publishedSources(program, build.fileNames)
  for (const source of published) diagnostics.push(...program.getSemanticDiagnostics(source))
  for (const source of published) {
    const target = declarationPath(source, build)
    const writeFile = (_name, text) => {
      mkdirSync(dirname(target), { recursive: true })
      writeFileSync(target, text)
    }
    diagnostics.push(...program.emit(source, writeFile, undefined, true).diagnostics)
  }
  const done = new Set(published)
  for (const source of program.getSourceFiles()) {
    if (!done.has(source)) diagnostics.push(...program.getSemanticDiagnostics(source))
  }
  return diagnostics
}

const all = parseConfig('tsconfig.json')
const build = parseConfig('tsconfig.build.json')
// the published entries first: the program's file order is the order the checker meets files in
// (see checkAndDeclare)
const rootNames = [...new Set([...build.fileNames, ...all.fileNames])]
const program = ts.createProgram({
  rootNames,
  options: {
    ...all.options,
    ...build.options,
    // tests import the repository's test-utils: no rootDir (each declaration's path is the
    // build's own, see declarationPath)
    rootDir: undefined,
    noEmit: false,
    emitDeclarationOnly: true,
    declaration: true,
  },
})
const diagnostics = checkAndDeclare(program, build)
if (diagnostics.length > 0) fail(ts.sortAndDeduplicateDiagnostics(diagnostics))
