// Types of readme-contents.mjs (for the tests that import it).
/** The marker that opens a README's contents block. */
export declare const OPEN: string
/** The marker that closes it. */
export declare const CLOSE: string
/** The READMEs that carry a contents line: the root's, examples' and each package's. */
export declare function readmePaths(root?: string): string[]
/** Headings of a Markdown text outside code fences, in order. */
export declare function headings(markdown: string): Array<{ depth: number; text: string }>
/** The contents line of `markdown`: its `##` sections as links, or `null` with fewer than 3. */
export declare function contentsLine(markdown: string): string | null
/** `markdown` with a current contents block before its first `##` heading. */
export declare function withContents(markdown: string): string
/** Every anchor GitHub makes for the headings of `markdown`, for checking `#anchor` links. */
export declare function headingAnchors(markdown: string): Set<string>
