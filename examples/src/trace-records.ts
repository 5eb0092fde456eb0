// The trace records the packages write, read from their TypeScript sources: every call that
// records an event under one of the `*_TRACE_STAGES` constants (`trace.record(STAGES.x, data)`,
// agent-loop's `safeRecord(trace, STAGES.x, data)`), with the fields of its data as the type
// checker sees them (spreads and unions included). docs/trace-schema.md is held to this.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import ts from 'typescript'

/** A record type the code writes: its stage constant and the fields its data may carry. */
export interface CodeRecord {
  /** Where the stage is named, e.g. `AGENT_TRACE_STAGES.request`. */
  constant: string
  /** Top-level data fields (optional ones included), and `field.sub` one level down where asked. */
  fields: Set<string>
  /** The files that record it. */
  files: Set<string>
}

/** Options of {@link codeRecords}. */
export interface CodeRecordsOptions {
  /** Source folders to read (every `.ts` file but tests and fixtures). */
  dirs: string[]
  /** Constants whose data is listed one level deeper too (`parts[].kind`, `counter.id`). */
  nested?: ReadonlySet<string>
}

/** Every `.ts` source of `dir` that names a stage constant, tests and fixtures left out. */
function sources(dir: string): string[] {
  const out: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) out.push(...sources(path))
    else if (/\.ts$/.test(entry.name) && !/\.(test|fixture|bench)\.ts$|test-support/.test(path)) {
      if (readFileSync(path, 'utf8').includes('_TRACE_STAGES.')) out.push(path)
    }
  }
  return out
}

/**
 * The stage constants a stage argument names: `X_TRACE_STAGES.key`, or either branch of
 * `cond ? X_TRACE_STAGES.a : X_TRACE_STAGES.b`.
 */
function stageConstants(node: ts.Expression): string[] {
  if (ts.isParenthesizedExpression(node)) return stageConstants(node.expression)
  if (ts.isConditionalExpression(node)) {
    return [...stageConstants(node.whenTrue), ...stageConstants(node.whenFalse)]
  }
  if (
    ts.isPropertyAccessExpression(node) &&
    ts.isIdentifier(node.expression) &&
    /_TRACE_STAGES$/.test(node.expression.text)
  ) {
    return [`${node.expression.text}.${node.name.text}`]
  }
  return []
}

/** Whether `call` records an event: `….record(…)` or `safeRecord(…)`. */
function isRecordCall(call: ts.CallExpression): boolean {
  const callee = call.expression
  if (ts.isIdentifier(callee)) return callee.text === 'safeRecord'
  return ts.isPropertyAccessExpression(callee) && callee.name.text === 'record'
}

/** The properties of `type`, every member of a union included. */
function propertiesOf(type: ts.Type): ts.Symbol[] {
  const parts = type.isUnion() ? type.types : [type]
  return parts.flatMap((t) => t.getProperties())
}

/** The element type of an array type, else the type itself. */
function elementOf(checker: ts.TypeChecker, type: ts.Type): ts.Type {
  const nonNull = checker.getNonNullableType(type)
  return checker.isArrayType(nonNull)
    ? (checker.getTypeArguments(nonNull as ts.TypeReference)[0] ?? nonNull)
    : nonNull
}

/** The field names of a record's data (`sub.field` one level down with `nested`). */
function fieldsOf(checker: ts.TypeChecker, data: ts.Expression, nested: boolean): Set<string> {
  const fields = new Set<string>()
  for (const property of propertiesOf(checker.getTypeAtLocation(data))) {
    fields.add(property.name)
    if (!nested) continue
    const type = checker.getTypeOfSymbolAtLocation(property, data)
    const isArray = checker.isArrayType(checker.getNonNullableType(type))
    const inner = elementOf(checker, type)
    if (!(inner.flags & ts.TypeFlags.Object)) continue
    for (const sub of propertiesOf(inner)) {
      fields.add(`${property.name}${isArray ? '[]' : ''}.${sub.name}`)
    }
  }
  return fields
}

/**
 * Every record type the sources in `options.dirs` write, by stage constant. Needs the packages
 * those sources import to be built (their types come from `dist`).
 */
export function codeRecords(options: CodeRecordsOptions): Map<string, CodeRecord> {
  const files = options.dirs.flatMap(sources)
  const program = ts.createProgram(files, {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: ['node'],
  })
  const checker = program.getTypeChecker()
  const records = new Map<string, CodeRecord>()
  for (const file of files) {
    const source = program.getSourceFile(file)
    if (!source) continue
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && isRecordCall(node)) {
        const at = node.arguments.findIndex((arg) => stageConstants(arg).length > 0)
        if (at >= 0) {
          const data = node.arguments[at + 1]
          for (const constant of stageConstants(node.arguments[at] as ts.Expression)) {
            const record = records.get(constant) ?? {
              constant,
              fields: new Set<string>(),
              files: new Set<string>(),
            }
            record.files.add(file)
            if (data) {
              for (const f of fieldsOf(checker, data, options.nested?.has(constant) === true))
                record.fields.add(f)
            }
            records.set(constant, record)
          }
        }
      }
      ts.forEachChild(node, visit)
    }
    visit(source)
  }
  return records
}

/** The property names of the interface `name` declared in `file` (read with the same checker). */
export function interfaceFields(file: string, name: string): string[] {
  const program = ts.createProgram([file], { noEmit: true, skipLibCheck: true })
  const source = program.getSourceFile(file)
  const checker = program.getTypeChecker()
  let fields: string[] = []
  source?.forEachChild((node) => {
    if (ts.isInterfaceDeclaration(node) && node.name.text === name) {
      fields = checker
        .getTypeAtLocation(node)
        .getProperties()
        .map((p) => p.name)
    }
  })
  return fields
}
