/** `@contextkit/agent-loop` → `contextkit-agent-loop.tgz`: the file name `pack:all` writes. */
export function packFileName(name: string): string
/** Pack every public package into `destination`; resolves to the tarballs' paths. */
export function packAll(destination: string): Promise<string[]>
