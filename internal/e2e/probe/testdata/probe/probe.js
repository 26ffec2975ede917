// Probe plugin for the e2e probe tests (probe_test.go): it records what
// OpenCode hands each hook into a JSON-lines file (options.out) and does
// what its options ask, so the tests can check the plugin API of the pinned
// OpenCode instead of trusting documentation.
import { tool } from "@opencode-ai/plugin"
import fs from "node:fs"

const server = async (...args) => {
  const [input, options] = args
  const out = options.out
  const log = (kind, data) => fs.appendFileSync(out, JSON.stringify({ kind, ...data }) + "\n")
  log("init", {
    argc: args.length,
    options,
    keys: Object.keys(input),
    projectWorktree: input.project?.worktree,
    worktree: input.worktree,
    directory: input.directory,
    serverUrl: String(input.serverUrl),
  })
  if (options.fetchServer) {
    // Not awaited: awaiting the server (or input.client) while plugins load
    // deadlocks OpenCode 1.18.33 — the server waits for the plugins.
    fetch(new URL("config", input.serverUrl), { signal: AbortSignal.timeout(3000) }).then(
      (res) => log("fetch", { status: res.status }),
      (err) => log("fetch", { error: String(err) }),
    )
  }
  if (options.appLog) {
    input.client.app
      .log({ body: { service: "ocmem-probe", level: "info", message: "probe-app-log-marker" } })
      .then(
        (res) => log("applog", { data: res.data }),
        (err) => log("applog", { error: String(err) }),
      )
  }
  let turn = 0
  const hooks = {
    tool: {
      probe_echo: tool({
        description: "Echo the text back.",
        args: { text: tool.schema.string().describe("text to echo") },
        async execute(args, ctx) {
          log("tool", { args, sessionID: ctx.sessionID, directory: ctx.directory, worktree: ctx.worktree })
          return "echo:" + args.text
        },
      }),
    },
    "experimental.chat.system.transform": async (inp, output) => {
      log("system", { sessionID: inp.sessionID, before: output.system.length })
      output.system.push("PROBE-SYSTEM-MARKER")
    },
    "chat.message": async (inp, output) => {
      turn++
      log("chat.message", { input: inp, message: output.message, parts: output.parts })
      const user = output.parts.find((p) => p.type === "text")
      const part = {
        sessionID: output.message.sessionID,
        messageID: output.message.id,
        type: "text",
        text: `PROBE-SYNTHETIC turn=${turn}`,
        synthetic: true,
      }
      if (options.idMode === "prt") part.id = user.id + "probe"
      if (options.idMode === "bad") part.id = "probe-" + turn
      output.parts.push(part)
    },
    event: async ({ event }) => {
      if (event.type.startsWith("session.")) log("event", { type: event.type, properties: event.properties })
    },
  }
  if (options.agent) {
    hooks.config = async (cfg) => {
      cfg.agent = cfg.agent ?? {}
      cfg.agent[options.agent.name] = options.agent.def
    }
  }
  return hooks
}

export default { id: "ocmem-probe", server }
