#!/usr/bin/env node
// ocmem's npm launcher: runs the ocmem binary of the platform package npm
// installed with this one (ocmem-<process.platform>-<process.arch>) with the
// same arguments and standard streams, passes on the signals that stop a
// process, and ends as the binary ended: with its exit status, or killed by
// the same signal. `npx ocmem@V install` and a global `npm i -g ocmem` come
// through here.
import { spawn } from "node:child_process"
import { createRequire } from "node:module"
import os from "node:os"
import path from "node:path"

const pkg = `ocmem-${process.platform}-${process.arch}`
let version = ""
try {
  version = createRequire(import.meta.url)("../package.json").version ?? ""
} catch {}
const at = version ? `ocmem@${version}` : "ocmem"
let bin
try {
  const dir = path.dirname(createRequire(import.meta.url).resolve(`${pkg}/package.json`))
  bin = path.join(dir, "bin", process.platform === "win32" ? "ocmem.exe" : "ocmem")
} catch {
  console.error(
    `ocmem: the package ${pkg}, which holds the ocmem binary, is not installed beside this one. ` +
      `npm installs it with ocmem unless optional dependencies are turned off (--omit=optional, or omit in ` +
      `\`npm config get omit\`). Installed with npm i -g: install again with them (\`npm i -g ${at} --include=optional\`). ` +
      `Run with npx: remove npx's copy (the _npx folder in \`npm config get cache\`) and run \`npx ${at}\` again. ` +
      `If npm has no ${pkg} at all, ocmem has no binary for this platform: build it from source (https://github.com/ocmem/ocmem).`,
  )
  process.exit(1)
}

// Signals that ask a process to stop go to the binary, which decides how
// to end; this process then ends the same way. Without this, killing the
// launcher (a service manager, `kill`, an MCP client closing) would leave
// the binary running on its own. The handlers are in place before the
// binary starts, so no such signal ends this process first. SIGUSR1 is
// Node's own (it starts the inspector). On Windows a console's Ctrl+C and
// Ctrl+Break reach the binary by themselves, and kill() there would end it
// at once, so they only keep this process from ending first.
const FORWARD = ["SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT", "SIGBREAK", "SIGUSR2"]
const CONSOLE = new Set(["SIGINT", "SIGBREAK"])
const forwarders = new Map()
let child = null
for (const sig of FORWARD) {
  if (os.constants.signals[sig] === undefined) continue
  const fwd = () => {
    if (process.platform === "win32" && CONSOLE.has(sig)) return
    try {
      child?.kill(sig)
    } catch {}
  }
  try {
    process.on(sig, fwd)
    forwarders.set(sig, fwd)
  } catch {
    // A signal Node does not let a program handle here.
  }
}

child = spawn(bin, process.argv.slice(2), { stdio: "inherit", windowsHide: true })
child.on("error", (err) => {
  console.error(`ocmem: cannot run ${bin}: ${err.message}`)
  process.exit(1)
})
child.on("exit", (code, signal) => {
  for (const [sig, fwd] of forwarders) process.off(sig, fwd)
  if (signal) {
    // Die of the same signal, so the caller sees what the binary saw.
    try {
      process.kill(process.pid, signal)
    } catch {}
    // A signal that does not end Node by default (or Windows, which has
    // none to send) ends it with the shell's status for it.
    setTimeout(() => process.exit(128 + (os.constants.signals[signal] ?? 0)), 100)
    return
  }
  process.exit(code ?? 1)
})
