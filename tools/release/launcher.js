#!/usr/bin/env node
// ocmem's npm launcher: runs the ocmem binary of the platform package npm
// installed with this one (ocmem-<process.platform>-<process.arch>) with the
// same arguments, standard streams and exit status. `npx ocmem@V install`
// and a global `npm i -g ocmem` come through here.
import { spawnSync } from "node:child_process"
import { createRequire } from "node:module"
import path from "node:path"

const pkg = `ocmem-${process.platform}-${process.arch}`
let bin
try {
  const dir = path.dirname(createRequire(import.meta.url).resolve(`${pkg}/package.json`))
  bin = path.join(dir, "bin", process.platform === "win32" ? "ocmem.exe" : "ocmem")
} catch {
  console.error(
    `ocmem: the package ${pkg} is not installed. npm installs it together with ocmem unless ` +
      `optional dependencies are turned off (--omit=optional); if there is no ${pkg} at all, ` +
      `ocmem has no binary for this platform: build it from source (https://github.com/ocmem/ocmem).`,
  )
  process.exit(1)
}
const res = spawnSync(bin, process.argv.slice(2), { stdio: "inherit", windowsHide: true })
if (res.error) {
  console.error(`ocmem: cannot run ${bin}: ${res.error.message}`)
  process.exit(1)
}
if (res.signal) process.kill(process.pid, res.signal)
process.exit(res.status ?? 1)
