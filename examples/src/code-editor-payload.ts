import type { Omission, TokenCounter } from '@contextkit/core'
import { collectReferences, fitPassLadder, type PassLadderParts } from '@contextkit/preload'
import { buildPreloadedFiles, type SkippedFile } from '@contextkit/preload/node'

/** A DOM element the user selected in the page, with where it comes from. */
export interface SelectedElement {
  tagName: string
  selector: string
  /** Source file of the component, relative to the project root. */
  sourceFile?: string
  sourceLine?: number
  /** The element's outer HTML (dropped first when the prompt is too long). */
  html?: string
}

/** A design reference image the user attached. */
export interface ReferenceImage {
  filename: string
  dimensions?: string
  /** A vision model's summary of the image (the "vision" pass drops it). */
  description?: string
}

/** Where the backend keeps routes and models. */
export interface BackendMap {
  endpoints?: Array<{ method: string; path: string; file: string; line?: number }>
  models?: Array<{ name: string; file: string; line?: number; fields?: string[] }>
}

/** What the visual editor sends: the instruction and what the user pointed at. */
export interface EditorPayload {
  instruction: string
  /** The page the user was on. */
  pageUrl?: string
  contexts: SelectedElement[]
  externalImages?: ReferenceImage[]
  /** A screenshot was attached (it goes with the images). */
  screenshot?: { filename: string; dimensions?: string }
  backendMap?: BackendMap
}

/** Options of {@link buildEditorPrompt}. */
export interface EditorPromptOptions {
  /** The project root files are read from. */
  root: string
  /** Token budget of the whole prompt (the pass ladder fits it). Default `8000`. */
  budgetTokens?: number
  /** Token budget of the preloaded files alone (the seed's 5,000). Default `5000`. */
  preloadBudgetTokens?: number
  counter: TokenCounter
}

/** The editor's user prompt, fitted. */
export interface EditorPrompt {
  text: string
  /** Section ids kept (`payload:header`, `preload:src/App.jsx`, …). */
  kept: string[]
  /** What the ladder shortened or dropped, and what preload left out. */
  omissions: Omission[]
  /** Files preload did not include, with why (`over_budget`, `file_too_large`, refusals). */
  skippedFiles: SkippedFile[]
  hardTruncated: boolean
  tokens: number
}

function elementLine(e: SelectedElement): string {
  const where = e.sourceFile
    ? ` in \`${e.sourceFile}${e.sourceLine ? `:${e.sourceLine}` : ''}\``
    : ''
  return `- \`<${e.tagName}>\` \`${e.selector}\`${where}`
}

function parts(payload: EditorPayload): Omit<PassLadderParts, 'preloaded'> {
  const header = [
    `## Instruction\n\n${payload.instruction}`,
    ...(payload.pageUrl ? [`Page: ${payload.pageUrl}`] : []),
  ].join('\n\n')
  const lite = payload.contexts.map(elementLine).join('\n')
  const full = payload.contexts
    .map((e) =>
      e.html ? `${elementLine(e)}\n  \`\`\`html\n  ${e.html}\n  \`\`\`` : elementLine(e),
    )
    .join('\n')
  const images = payload.externalImages ?? []
  const backend = payload.backendMap
  const backendLines = [
    ...(backend?.models ?? []).map(
      (m) =>
        `- model \`${m.name}\` in \`${m.file}${m.line ? `:${m.line}` : ''}\`${m.fields?.length ? ` (fields: ${m.fields.join(', ')})` : ''}`,
    ),
    ...(backend?.endpoints ?? []).map(
      (e) => `- \`${e.method} ${e.path}\` in \`${e.file}${e.line ? `:${e.line}` : ''}\``,
    ),
  ]
  const files = [...new Set(payload.contexts.flatMap((e) => (e.sourceFile ? [e.sourceFile] : [])))]
  return {
    header,
    elements: { full: `## Selected Elements\n\n${full}`, lite: `## Selected Elements\n\n${lite}` },
    ...(images.length > 0
      ? {
          images: `## Reference Images\n\n${images.map((i) => `- ${i.filename}${i.dimensions ? ` (${i.dimensions})` : ''}`).join('\n')}`,
        }
      : {}),
    ...(images.some((i) => i.description)
      ? {
          vision: `## Image Notes\n\n${images.flatMap((i) => (i.description ? [`- ${i.filename}: ${i.description}`] : [])).join('\n')}`,
        }
      : {}),
    ...(payload.screenshot
      ? { screenshot: `## Screenshot\n\n${payload.screenshot.filename} of the page is attached.` }
      : {}),
    ...(backendLines.length > 0
      ? { backend: `## Backend Structure\n\n${backendLines.join('\n')}` }
      : {}),
    ...(files.length > 0
      ? { filesToModify: `## Files to Modify\n\n${files.map((f) => `- \`${f}\``).join('\n')}` }
      : {}),
  }
}

/**
 * The visual editor's prompt from its payload (seed 002's `format_payload`): the instruction,
 * the selected elements (with their HTML, or without it when space is short), reference images
 * and their vision notes, the screenshot note, the backend map, the files the selection and the
 * backend map refer to, preloaded from disk through preload's safe reads under their own budget
 * (`buildPreloadedFiles` of `collectReferences`), and the files to modify. preload's pass ladder
 * (`fitPassLadder`) fits it all into `budgetTokens`: HTML goes first, then vision notes, then
 * preloaded files, then images, then the backend map, and last a hard cut.
 */
export async function buildEditorPrompt(
  payload: EditorPayload,
  options: EditorPromptOptions,
): Promise<EditorPrompt> {
  const refs = collectReferences(payload.contexts, payload.backendMap ?? null)
  const preloaded = await buildPreloadedFiles(refs, {
    root: options.root,
    budgetTokens: options.preloadBudgetTokens ?? 5000,
    counter: options.counter,
  })
  const fitted = fitPassLadder(
    { ...parts(payload), preloaded: preloaded.sections },
    options.budgetTokens ?? 8000,
    options.counter,
  )
  return {
    text: fitted.text,
    kept: fitted.kept.map((s) => s.id),
    omissions: [...preloaded.omissions, ...fitted.omissions],
    skippedFiles: preloaded.skipped,
    hardTruncated: fitted.hardTruncated,
    tokens: fitted.tokens,
  }
}

/**
 * The code editor's project root: `VCI_OUTPUT_DIR` when set (the seed's variable), else `/output`
 * (the seed's default). The command-line file imports it from here, not from `code-editor.ts`,
 * whose entry point imports the command-line file.
 */
export function codeEditorRoot(env: Readonly<Record<string, string | undefined>>): string {
  const dir = env.VCI_OUTPUT_DIR
  return typeof dir === 'string' && dir.trim() !== '' ? dir : '/output'
}
