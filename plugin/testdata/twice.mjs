// Loads two copies of the plugin (two files, as two registrations are) in
// one process, for plugin_test.go's TestLoadedOnce, and prints what each
// registered for which directory, on both OpenCode lines, as one JSON line.
//
//   node twice.mjs <first plugin.js> <second plugin.js>
import { pathToFileURL } from "node:url"

const [first, second] = process.argv.slice(2)
const a = await import(pathToFileURL(first).href)
const b = await import(pathToFileURL(second).href)
const logs = []

// OpenCode 1.x: server(input, options) returns the hooks.
async function v1(mod, directory) {
  const input = {
    client: { app: { log: async ({ body }) => { logs.push(body.message); return { data: true } } } },
    project: { worktree: directory },
    worktree: directory,
    directory,
    serverUrl: new URL("http://localhost:4096"),
  }
  return Object.keys(await mod.default.server(input, {})).sort()
}

// OpenCode 2: setup(ctx) registers through ctx; what it registered is
// counted.
async function v2(mod, directory) {
  const got = []
  const ctx = {
    options: {},
    location: { directory, project: { directory } },
    session: { hook: async (name) => { got.push("session." + name) } },
    tool: { transform: async () => { got.push("tool.transform") }, hook: async (name) => { got.push("tool." + name) } },
    event: { subscribe: async function* () { got.push("event.subscribe") } },
  }
  await mod.default.setup(ctx)
  await new Promise((r) => setTimeout(r, 10))
  return got.sort()
}

// The TUI entry: each copy that acts subscribes to the notices.
async function tui(mod) {
  let subscribed = 0
  const ctx = { client: { rpc: () => ({ events: { on: () => { subscribed++; return () => {} } } }) }, ui: { toast: { show: () => {} } } }
  await mod.tui.setup(ctx)
  return subscribed
}

const out = {
  V1: {
    first: await v1(a, "/repo"),
    second: await v1(b, "/repo"),
    secondElsewhere: await v1(b, "/other"),
    firstAgain: await v1(a, "/repo"),
  },
  V2: {
    first: await v2(a, "/repo2"),
    second: await v2(b, "/repo2"),
    firstAgain: await v2(a, "/repo2"),
  },
  TUI: [await tui(a), await tui(b), await tui(a)],
  Logs: logs,
}
process.stdout.write(JSON.stringify(out) + "\n")
