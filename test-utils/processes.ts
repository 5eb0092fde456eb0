// Test helpers about processes, shared by the lock and lease tests of core and the stores.
import { spawn } from 'node:child_process'

/** The pid of a process that has exited (a holder whose process is gone). */
export async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' })
  await new Promise((resolve) => child.once('exit', resolve))
  if (child.pid === undefined) throw new Error('no pid')
  return child.pid
}
