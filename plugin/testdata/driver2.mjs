// Drives the plugin as OpenCode 2 does, for plugin_test.go: calls its
// setup() with a fake OpenCode 2 context, runs the steps given as JSON in
// argv[3] and prints one JSON line per step.
//
//   node driver2.mjs <plugin.js> '<options JSON>' '<steps JSON>'
import { pathToFileURL } from "node:url"

const [pluginPath, optionsJSON, stepsJSON] = process.argv.slice(2)
const out = (v) => process.stdout.write(JSON.stringify(v) + "\n")

// Each agent's permission rules, as OpenCode 2's agent.get gives them.
const permissions = {
  build: [{ action: "*", resource: "*", effect: "allow" }],
  plan: [
    { action: "*", resource: "*", effect: "allow" },
    { action: "edit", resource: "*", effect: "deny" },
    { action: "edit", resource: "/home/me/.opencode/plan/*", effect: "allow" },
  ],
  guarded: [
    { action: "*", resource: "*", effect: "allow" },
    { action: "edit", resource: ".memory/**", effect: "deny" },
  ],
  asking: [
    { action: "*", resource: "*", effect: "allow" },
    { action: "edit", resource: "*", effect: "ask" },
  ],
}

const hooks = {}
let tools = []
const synthetics = []
const generated = []
const queue = []
let wake = null
const subscription = {
  [Symbol.asyncIterator]() {
    return {
      next: () =>
        new Promise((resolve) => {
          const take = () => resolve({ value: queue.shift(), done: false })
          if (queue.length) take()
          else wake = take
        }),
    }
  },
}
const push = (ev) => {
  queue.push(ev)
  const w = wake
  wake = null
  w?.()
}

// The RPC of OpenCode 2's plugin context: what the plugin registers, and
// the events it emits on it (which OpenCode publishes as rpc.<id>.<name>).
const registered = []
const emitted = []
const rpc = {
  register: async (definition, handlers) => {
    registered.push({ id: definition.id, methods: Object.keys(definition.methods ?? {}), events: Object.keys(definition.events ?? {}), schema: definition.events?.notice?.schema, handlers: Object.keys(handlers ?? {}) })
    return {
      dispose: () => {},
      events: {
        emit: async (name, data) => {
          if (!Object.hasOwn(definition.events, name)) throw new Error(`Unknown RPC event: ${definition.id}.${name}`)
          emitted.push({ type: `rpc.${definition.id}.${name}`, data })
        },
      },
    }
  },
}

const ctx = {
  options: JSON.parse(optionsJSON),
  rpc,
  location: { directory: "/repo/sub", project: { id: "p", directory: "/repo", canonical: "/repo" } },
  session: {
    hook: async (name, fn) => {
      hooks[name] = fn
    },
    synthetic: async (input) => {
      synthetics.push(input)
      return { id: "msg_syn", type: "synthetic" }
    },
    get: async ({ sessionID }) => {
      if (sessionID === "ses_missing") throw new Error("Session not found: ses_missing")
      return { id: sessionID, title: "Fix the deploy", projectID: "p", location: { directory: "/repo/sub" } }
    },
    context: async ({ sessionID }) => ({
      data: [
        { id: "msg_1", type: "synthetic", text: "BODIES", time: { created: 1 } },
        { id: "msg_2", type: "user", text: "the deploy failed", time: { created: 2 } },
        { id: "msg_3", type: "assistant", agent: "build", model: { id: "m1", providerID: "p1" }, time: { created: 3, completed: 4 },
          content: [{ type: "reasoning", text: "hm" }, { type: "tool", id: "call_1", name: "shell" }, { type: "text", text: "run make migrate" }] },
        { id: "msg_4", type: "idle", outcome: "succeeded", time: { created: 5 } },
      ],
    }),
  },
  tool: {
    transform: async (fn) => {
      fn({ add: (t) => tools.push(t), list: () => [], get: () => undefined, remove: () => {} })
    },
  },
  event: { subscribe: () => subscription },
  agent: {
    get: async ({ agentID }) => {
      if (!(agentID in permissions)) throw new Error("Agent not found: " + agentID)
      return { location: {}, data: { id: agentID, permissions: permissions[agentID] } }
    },
  },
  model: {
    list: async () => ({
      data: [
        { id: "m1", modelID: "m1", providerID: "p1", name: "One", settings: { apiKey: "SECRET-KEY" }, capabilities: { input: ["text"], output: ["text"] },
          cost: [{ input: 1, output: 2 }], status: "active", enabled: true, limit: { context: 128000, output: 4096 } },
        { id: "m2", modelID: "m2", providerID: "p1", enabled: false, capabilities: { input: ["text"], output: ["text"] }, cost: [{ input: 0, output: 0 }], limit: { context: 1 } },
      ],
    }),
  },
  generate: {
    text: async (input) => {
      generated.push(input)
      return { data: { text: "GENERATED" } }
    },
  },
}

const mod = await import(pathToFileURL(pluginPath).href)

async function run(step) {
  switch (step.do) {
    case "setup":
      return (await mod.default.setup(ctx)) ?? null
    case "setup-partial":
      // What OpenCode 1.18.33 passes to setup(): no session, tool or event.
      return (await mod.default.setup({ options: ctx.options, agent: {}, plugin: {} })) ?? null
    case "tools":
      return tools.map((t) => ({ name: t.name, input: t.input, options: t.options }))
    case "context": {
      const e = { sessionID: step.sessionID, system: [{ type: "text", text: "base" }], messages: [] }
      await hooks.context(e)
      return e.system
    }
    case "prompt":
      await hooks.prompt({ sessionID: step.sessionID, messageID: "msg_p", prompt: { text: step.text, files: [] }, delivery: "steer" })
      return synthetics
    case "tool": {
      const t = tools.find((x) => x.name === step.name)
      return await t.execute(step.args, { sessionID: step.sessionID, agent: step.agent, messageID: "msg_t", id: "call_t" })
    }
    case "event":
      push(step.event)
      return null
    case "generated":
      return generated
    case "registered":
      return registered
    case "emitted":
      return emitted
    case "tui": {
      // The TUI entry (tui.js beside plugin.js when TUI_ENTRY names it),
      // set up with a fake OpenCode 2 TUI context; then every event the
      // server half emitted, plus one of another plugin's RPC and one
      // without a message, reaches its subscription, as OpenCode's client
      // delivers them; it returns the toasts shown.
      const entry = process.env.TUI_ENTRY ? (await import(pathToFileURL(process.env.TUI_ENTRY).href)).default : mod.tui
      const subs = []
      const toasts = []
      let ended = 0
      const tctx = {
        options: {},
        client: {
          rpc: (definition) => ({
            events: {
              subscribe: () => {
                throw new Error("not used")
              },
              on: (name, fn) => {
                if (!Object.hasOwn(definition.events, name)) throw new Error(`Unknown RPC event: ${definition.id}.${name}`)
                subs.push({ type: `rpc.${definition.id}.${name}`, fn })
                return () => ended++
              },
            },
          }),
        },
        ui: { toast: { show: (t) => toasts.push(t) } },
      }
      const cleanup = await entry.setup(tctx)
      const events = [...emitted, { type: "rpc.other.notice", data: { message: "NOT OURS" } }, { type: "rpc.ocmem.notice", data: { variant: "info" } }]
      for (const ev of events) for (const s of subs) if (s.type === ev.type) await s.fn({ id: "evt_1", type: ev.type, location: { directory: "/repo/sub" }, data: ev.data })
      if (typeof cleanup === "function") cleanup()
      return { id: entry.id, toasts, ended }
    }
    case "sleep":
      return await new Promise((r) => setTimeout(r, step.ms))
  }
  throw new Error("unknown step " + step.do)
}

// OpenCode keeps its process alive; here a timer does, until the steps are
// done. Then nothing of the plugin's (its child, timers, the pending event
// subscription) may keep node up.
const alive = setInterval(() => {}, 1000)
for (const step of JSON.parse(stepsJSON)) {
  const start = Date.now()
  try {
    const result = await run(step)
    out({ do: step.do, ms: Date.now() - start, result })
  } catch (err) {
    out({ do: step.do, ms: Date.now() - start, threw: String(err?.stack ?? err) })
  }
}
clearInterval(alive)
out({ logs: [] })
