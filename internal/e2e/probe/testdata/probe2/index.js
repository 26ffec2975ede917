// A probe of OpenCode 2's plugin API for probe2_test.go: it records what it
// sees, one JSON line per event, in $HOME/probe2.jsonl, and changes the
// prompt and the context the way the test's PROBE2_MODE asks.
import fs from "node:fs"
import os from "node:os"
import path from "node:path"

const out = path.join(os.homedir(), "probe2.jsonl")
const record = (what, data) => fs.appendFileSync(out, JSON.stringify({ what, ...data }) + "\n")

export default {
  id: "ocmem-probe2",
  server: async () => {
    record("server", {})
    return {}
  },
  setup: async (ctx) => {
    record("setup", { keys: Object.keys(ctx ?? {}).sort() })
    if (typeof ctx?.session?.hook !== "function") return
    const mode = process.env.PROBE2_MODE ?? ""
    await ctx.session.hook("prompt", (e) => {
      record("prompt", { text: e.prompt.text })
      if (mode === "edits") e.prompt.text += " PROMPT-EDIT"
    })
    await ctx.session.hook("context", (e) => {
      record("context", { system: e.system.length, messages: e.messages.length })
      if (mode === "edits") e.messages.push({ role: "user", content: [{ type: "text", text: "CONTEXT-ADDED" }] })
    })
  },
}
