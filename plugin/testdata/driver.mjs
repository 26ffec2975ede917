// Drives the plugin outside OpenCode for plugin_test.go: loads it with a
// fake OpenCode input, runs the steps given as JSON in argv[3] and prints
// one JSON line per step, then the plugin's log lines.
//
//   node driver.mjs <plugin.js> '<options JSON>' '<steps JSON>'
import { pathToFileURL } from "node:url"

const [pluginPath, optionsJSON, stepsJSON] = process.argv.slice(2)
const logs = []
const input = {
  client: {
    app: { log: async ({ body }) => { logs.push(body); return { data: true } } },
    // Toasts are recorded with the log lines, as level "toast:<variant>".
    tui: { showToast: async ({ body }) => { logs.push({ service: body.title, level: "toast:" + body.variant, message: body.message }); return { data: true } } },
    // The SDK client's config as `opencode serve` gives it, stubbed: the
    // address OpenCode bound, its Basic auth, and its fetch.
    _client: {
      getConfig: () => ({
        baseUrl: "http://127.0.0.1:4101",
        headers: new Headers({ authorization: "Basic T1dO", "x-opencode-directory": "/repo/sub" }),
        fetch: async (req) => {
          if (new URL(req.url).pathname === "/fail") throw new Error("stub fetch failed")
          const body = JSON.stringify({ method: req.method, url: req.url, body: await req.text(), contentType: req.headers.get("content-type"), accept: req.headers.get("accept"), authorization: req.headers.get("authorization") })
          return new Response(body, { status: 201, headers: { "x-test": "yes" } })
        },
      }),
    },
  },
  project: { worktree: "/repo" },
  worktree: "/repo",
  directory: "/repo/sub",
  serverUrl: new URL("http://localhost:4096"),
}
const out = (v) => process.stdout.write(JSON.stringify(v) + "\n")

const mod = await import(pathToFileURL(pluginPath).href)
const hooks = await mod.default.server(input, JSON.parse(optionsJSON))

async function run(step) {
  switch (step.do) {
    case "tools":
      return Object.fromEntries(Object.entries(hooks.tool ?? {}).map(([k, v]) => [k, Object.keys(v.args).sort()]))
    case "toolargs": // each tool's description and zod arguments, as the fake zod records them
      return Object.fromEntries(Object.entries(hooks.tool ?? {}).map(([k, v]) => [k, { description: v.description, args: v.args }]))
    case "system": {
      const output = { system: ["base"] }
      await hooks["experimental.chat.system.transform"]({ sessionID: step.sessionID, model: {} }, output)
      return output.system
    }
    case "message": {
      const output = { message: { id: "msg_1", sessionID: step.sessionID, role: "user" }, parts: step.parts }
      await hooks["chat.message"]({ sessionID: step.sessionID }, output)
      return output.parts
    }
    case "transform": {
      // The stored messages; the title request's copy of them; and the
      // array OpenCode hands the hook before an agent request.
      const stored = [{ info: { id: "msg_1", role: "user" }, parts: step.parts }]
      const title = stored.slice()
      const messages = stored.slice()
      await hooks["experimental.chat.messages.transform"]({}, { messages })
      return { agent: messages, title, stored }
    }
    case "tool":
      return await hooks.tool[step.name].execute(step.args, { sessionID: step.sessionID, directory: "/repo/sub", worktree: "/repo" })
    case "toolask": { // with OpenCode's ask, which allows and records the patterns
      const asked = []
      const metadata = []
      const ctx = { sessionID: step.sessionID, directory: "/repo/sub", worktree: "/repo", ask: async (req) => { asked.push(req.patterns); metadata.push(req.metadata) } }
      const out = await hooks.tool[step.name].execute(step.args, ctx)
      return { out, asked, metadata }
    }
    case "before": // tool.execute.before: a refusal is thrown
      return (await hooks["tool.execute.before"]({ tool: step.name, sessionID: step.sessionID, callID: step.callID }, { args: step.args })) ?? null
    case "toolafter":
      return await hooks["tool.execute.after"]({ tool: step.name, sessionID: step.sessionID, callID: step.callID, args: {} }, { title: "t", output: "o", metadata: {} })
    case "idle":
      return await hooks.event({ event: { type: "session.idle", properties: { sessionID: step.sessionID } } })
    case "config": {
      const cfg = { agent: {} }
      await hooks.config(cfg)
      return cfg
    }
    case "sleep":
      return await new Promise((r) => setTimeout(r, step.ms))
    case "parallel":
      return await Promise.all(step.steps.map(run))
  }
  throw new Error("unknown step " + step.do)
}

// OpenCode keeps its process alive; here a timer does, until the steps are
// done. Then nothing of the plugin's (its child, timers) may keep node up.
const alive = setInterval(() => {}, 1000)
for (const step of JSON.parse(stepsJSON)) {
  const start = Date.now()
  try {
    const result = await run(step)
    out({ do: step.do, ms: Date.now() - start, result })
  } catch (err) {
    out({ do: step.do, ms: Date.now() - start, threw: String(err) })
  }
}
clearInterval(alive)
out({ logs })
