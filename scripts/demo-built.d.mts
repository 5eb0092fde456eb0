/** The package folders the demo's build makes: examples' workspace dependencies, transitively. */
export function demoBuildFolders(root: string): string[]
/** Whether every package the demo builds has been built once. */
export function demoBuilt(root: string): boolean
