// Types of check-packages.mjs (for the test that checks broken copies of a package with it).
import type { Analysis, CheckResult, Problem } from '@arethetypeswrong/core'

/** One check of one package: `ok`, and its printed line (with the problems when it failed). */
export interface Verdict {
  ok: boolean
  text: string
}
/** `publint --strict` of a packed package. */
export declare function publintTarball(name: string, tarball: Uint8Array): Promise<Verdict>
/** arethetypeswrong of a packed package, with the node16 profile and cjs-resolves-to-esm ignored. */
export declare function attwTarball(name: string, tarball: Uint8Array): Promise<Verdict>
/** The problems of an analysis that fail the check (the profile's and the rule's left out). */
export declare function countedProblems(
  analysis: CheckResult | Pick<Analysis, 'types' | 'problems'>,
): Problem[]
/** Both checks of the tarball at `file`, publint first. */
export declare function checkTarball(name: string, file: string): Promise<[Verdict, Verdict]>
