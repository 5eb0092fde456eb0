// Types of pinned-pnpm.mjs (for the tests that import it).
/** `pnpm@<version>`, as the root package.json pins it. */
export declare const PACKAGE_MANAGER: string
/** The path of the pinned pnpm's bin in npx's cache, found once: run it as a command. */
export declare function pinnedPnpm(): Promise<string>
