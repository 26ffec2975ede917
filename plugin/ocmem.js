// ocmem: durable memory for OpenCode. https://github.com/ocmem/ocmem
//
// This file only forwards OpenCode's hooks to a long-lived `ocmem serve`
// (newline-delimited JSON-RPC 2.0 over its stdin/stdout); every decision is
// made there. It fails open: an error or a time limit is logged, and the hook
// returns without changing anything, so memory trouble never breaks a turn.
// It never writes to OpenCode's stdout.
//
// `ocmem install` writes this file and fills in the line below.
const OCMEM_BIN = "__OCMEM_BIN__";

import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { createRequire } from "node:module"
import os from "node:os"
import path from "node:path"
import { createInterface } from "node:readline"
import { pathToFileURL } from "node:url"

const SERVICE = "ocmem"
// Injection runs before every model request of a turn; a user waits on it.
const INJECT_TIMEOUT_MS = 3000
// Tools are called by the model, which waits anyway; writes take a lock.
const TOOL_TIMEOUT_MS = 15000
// A tool call waits on its check; a first check may wait for the store's
// load, later ones answer in well under a millisecond.
const CHECK_TIMEOUT_MS = 10000
// idle is not awaited by anything; the limit only frees the pending entry.
const IDLE_TIMEOUT_MS = 60000
// A request ocmem serve sends the plugin (opencode.fetch: an HTTP request
// into OpenCode's server, for extraction) is given up after this long.
const FETCH_TIMEOUT_MS = 30000
// After this many time-outs in a row the child is taken for hung and killed;
// the next call starts a new one.
const MAX_TIMEOUTS = 3
// EXTRACT_AGENT (in the contract, below) is the agent extraction asks for
// through OpenCode's server: with every tool denied (1.18.33 ignores
// `tools: {"*": false}`; a permission rule removes them), and "primary" +
// hidden like OpenCode's own title agent, because the task tool offers
// every subagent to the model, hidden or not. The extraction instructions
// come with each request.

// binary picks the ocmem binary, the first of: the plugin option bin;
// $OCMEM_BIN; the path `ocmem install` wrote above, if it exists; the binary
// of the platform package npm installed beside this file
// (ocmem-<process.platform>-<process.arch>, see tools/release), if it
// exists; `ocmem` on PATH. tried names every place looked at, the chosen
// one last, for a message when it does not run.
function binary(options) {
  if (typeof options.bin === "string" && options.bin) return { bin: options.bin, tried: [`options.bin ${options.bin}`] }
  if (process.env.OCMEM_BIN) return { bin: process.env.OCMEM_BIN, tried: [`$OCMEM_BIN ${process.env.OCMEM_BIN}`] }
  const tried = []
  if (OCMEM_BIN !== "__OCMEM" + "_BIN__") {
    if (existsSync(OCMEM_BIN)) return { bin: OCMEM_BIN, tried: [OCMEM_BIN] }
    tried.push(`${OCMEM_BIN} (missing)`)
  }
  const pkg = `ocmem-${process.platform}-${process.arch}`
  try {
    const dir = path.dirname(createRequire(import.meta.url).resolve(`${pkg}/package.json`))
    const bin = path.join(dir, "bin", process.platform === "win32" ? "ocmem.exe" : "ocmem")
    if (existsSync(bin)) return { bin, tried: [...tried, bin] }
    tried.push(`${bin} (missing)`)
  } catch {
    tried.push(`npm package ${pkg} (not installed)`)
  }
  return { bin: "ocmem", tried: [...tried, "ocmem on PATH"] }
}

// packageVersion is V when this file is the plugin of the npm package
// ocmem@V (its package.json beside it), else "".
function packageVersion() {
  try {
    const pj = createRequire(import.meta.url)("./package.json")
    return pj?.name === "ocmem" && typeof pj.version === "string" ? pj.version : ""
  } catch {
    return ""
  }
}
const PACKAGE_VERSION = packageVersion()

// repairHint is what to run when the binary cannot be started: from npm,
// the command that repairs OpenCode's copy of the package (which OpenCode
// never installs again by itself); else the README's way.
function repairHint() {
  if (PACKAGE_VERSION) return `run \`npx ocmem@${PACKAGE_VERSION} doctor --fix\`, then restart OpenCode`
  return "install it as the README says, then run `ocmem doctor`"
}

// One `ocmem serve` per binary, shared by every plugin instance of this
// OpenCode process (one instance per directory under `opencode serve`).
const servers = new Map()

// ocmem registered twice (globally by `ocmem install` and in a project by
// `ocmem install --project`, or as a folder and from npm) is two copies of
// this module in one OpenCode process, each with its own module state: both
// would inject the outline, handle every event and start a serve. The
// registry below lives on globalThis, which every copy shares: for each
// directory, the first copy to load acts, and any other steps aside and
// says so. A copy loaded again for the same directory (`opencode serve`
// makes an instance per directory and may make one again) is the same
// module URL, and acts.
const LOADED = Symbol.for("ocmem.plugin.loaded")

// loadedElsewhere returns the module URL of another copy of this plugin
// that already acts for key in this process, "" when this copy is to act.
function loadedElsewhere(key) {
  const loaded = (globalThis[LOADED] ??= new Map())
  const self = String(import.meta.url).replace(/[?#].*$/, "")
  const first = loaded.get(key)
  if (first === undefined) loaded.set(key, self)
  return first === undefined || first === self ? "" : first
}

// TUI_KEY is the registry's key for the TUI entry, which acts once per TUI
// process whatever its directory.
const TUI_KEY = "\u0000tui"

// steppedAside is the log line of a copy that does not act.
function steppedAside(key, first) {
  return `ocmem is registered more than once: the copy at ${first} already runs for ${key}, so ${String(import.meta.url)} does nothing there (\`ocmem doctor\` names both entries; keep one)`
}

// A binary that cannot be started (missing, not executable) is tried again
// after this long; calls in between fail at once, without a log line each.
const MISSING_RETRY_MS = 60000
// The person is told once per OpenCode process that the binary is missing.
let missingTold = false

class MissingError extends Error {}

// headerOf returns header name of a Headers or a plain object (hey-api
// keeps either), or "" when it has none.
function headerOf(headers, name) {
  if (!headers || typeof headers !== "object") return ""
  if (typeof headers.get === "function") return headers.get(name) ?? ""
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() === name && typeof v === "string") return v
  }
  return ""
}

class Serve {
  constructor(bin, log, tried) {
    this.bin = bin
    this.log = log
    this.tried = tried ?? [bin]
    // notify shows a message to the person (a toast); set by the first
    // plugin instance, like client.
    this.notify = null
    this.missingSince = 0
    this.child = null
    this.pending = new Map()
    this.nextID = 1
    this.timeouts = 0
    // input.client of a plugin instance, for serve's opencode.fetch; any
    // instance's will do (the request names its directory).
    this.client = null
    // On OpenCode 2, which has no client: answers opencode.fetch from the
    // plugin context (v2Fetcher).
    this.v2fetch = null
  }

  start() {
    const child = spawn(this.bin, ["serve"], { stdio: ["pipe", "pipe", "pipe"], windowsHide: true })
    this.child = child
    const gone = (err) => this.drop(child, err)
    child.on("error", (err) => {
      if (err?.code === "ENOENT" || err?.code === "EACCES") {
        this.missing(err)
        gone(new MissingError(err.message))
        return
      }
      this.log("warn", `ocmem serve (${this.bin}): ${err.message}`)
      gone(err)
    })
    child.on("exit", (code, signal) => {
      this.log("warn", `ocmem serve exited (${signal ?? "code " + code})`)
      gone(new Error(`ocmem serve exited (${signal ?? "code " + code})`))
    })
    child.stdin.on("error", (err) => gone(err))
    createInterface({ input: child.stdout }).on("line", (line) => this.receive(line, child))
    createInterface({ input: child.stderr }).on("line", (line) => this.log("debug", line))
    // The child must not keep OpenCode alive; its stdin closing ends it.
    child.unref?.()
    for (const s of [child.stdin, child.stdout, child.stderr]) s?.unref?.()
    return child
  }

  // missing records that the binary cannot be started and tells the
  // person once per process, in OpenCode's log and as a toast: memory is
  // off until it is installed, and `ocmem doctor` says why.
  missing(err) {
    this.missingSince = Date.now()
    if (missingTold) return
    missingTold = true
    const msg = `memory is off: the ocmem binary cannot be started (${err.code}; looked at: ${this.tried.join(", ")}). To repair it, ${repairHint()}.`
    this.log("error", msg)
    this.notify?.(msg, "error")
  }

  // drop forgets a child that died or hung, failing its pending calls; the
  // next call starts a new one.
  drop(child, err) {
    if (this.child === child) this.child = null
    for (const [id, p] of this.pending) {
      if (p.child === child) {
        this.pending.delete(id)
        p.fail(err)
      }
    }
  }

  receive(line, child) {
    let msg
    try {
      msg = JSON.parse(line)
    } catch {
      this.log("warn", `ocmem serve wrote a line that is not JSON: ${line.slice(0, 200)}`)
      return
    }
    if (typeof msg?.method === "string" && msg.id !== undefined && !this.pending.has(msg.id)) {
      this.answer(msg, child)
      return
    }
    const p = this.pending.get(msg?.id)
    if (!p) return
    this.pending.delete(msg.id)
    if (msg.error) p.fail(new RPCError(msg.error))
    else p.done(msg.result ?? {})
  }

  // answer runs a request ocmem serve sent and writes the reply to the
  // child that sent it. opencode.fetch goes through input.client (see
  // fetch): the only way extraction reaches OpenCode.
  async answer(msg, child) {
    const reply = (body) => {
      try {
        child?.stdin?.write(JSON.stringify({ jsonrpc: "2.0", id: msg.id, ...body }) + "\n")
      } catch {}
    }
    if (msg.method === "notice") {
      // Something serve did in the background (extraction) that the
      // person should see.
      const p = msg.params ?? {}
      if (typeof p.message === "string" && p.message) this.notify?.(p.message, p.variant === "warning" ? "warning" : "info")
      reply({ result: {} })
      return
    }
    if (msg.method !== "opencode.fetch") {
      reply({ error: { code: -32601, message: `method not found: ${msg.method}` } })
      return
    }
    try {
      reply({ result: await this.fetch(msg.params ?? {}) })
    } catch (err) {
      reply({ error: { code: 1, message: String(err?.message ?? err) } })
    }
  }

  // fetch sends one of serve's requests with this OpenCode's own client,
  // never anywhere else. The SDK client (hey-api) keeps its config on
  // _client (1.18.33): where OpenCode listens on no port (plain `opencode`,
  // `opencode run`) its fetch is OpenCode's server in process and its base
  // URL a placeholder; where it listens (`opencode serve`, `--port N`) the
  // base URL is the address OpenCode bound and its headers carry the Basic
  // auth of OPENCODE_SERVER_PASSWORD. Only that client's credentials are
  // sent: an authorization header from serve is dropped. input.serverUrl
  // is not used: under plain `opencode` it names http://localhost:4096/,
  // where any local process may listen.
  async fetch({ method, path, body, headers }) {
    if (!this.client && this.v2fetch) return await this.v2fetch({ method, path, body })
    const cfg = this.client?._client?.getConfig?.()
    if (typeof cfg?.fetch !== "function") throw new Error("input.client has no fetch of its own")
    if (!cfg.baseUrl) throw new Error("input.client has no base URL")
    if (typeof path !== "string" || !path.startsWith("/") || path.startsWith("//")) throw new Error("opencode.fetch: path must start with a single /")
    const base = new URL(cfg.baseUrl)
    const url = new URL(path, base)
    if (url.origin !== base.origin) throw new Error("opencode.fetch: path leaves OpenCode's server")
    const h = new Headers()
    for (const k of ["accept", "content-type"]) {
      const v = headers && typeof headers === "object" ? headers[k] : undefined
      if (typeof v === "string") h.set(k, v)
    }
    const auth = headerOf(cfg.headers, "authorization")
    if (auth) h.set("authorization", auth)
    const req = new Request(url, {
      method: method || "GET",
      headers: h,
      body: typeof body === "string" ? body : undefined,
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    })
    const res = await cfg.fetch(req)
    const text = await res.text()
    return { status: res.status, body: text, headers: Object.fromEntries(res.headers) }
  }

  async request(method, params, timeoutMs) {
    try {
      return await this.call(method, params, timeoutMs)
    } catch (err) {
      if (err instanceof RPCError || err instanceof TimeoutError || err instanceof MissingError || !RETRY_ONCE.has(method)) throw err
      this.log("info", `${method} sent again to a new ocmem serve: ${err.message}`)
      return await this.call(method, params, timeoutMs)
    }
  }

  call(method, params, timeoutMs) {
    if (!this.child && this.missingSince && Date.now() - this.missingSince < MISSING_RETRY_MS) {
      return Promise.reject(new MissingError(`${this.bin} cannot be started`))
    }
    return new Promise((resolve, reject) => {
      let child = this.child
      try {
        if (!child) child = this.start()
      } catch (err) {
        reject(err)
        return
      }
      const id = this.nextID++
      const timer = setTimeout(() => {
        if (!this.pending.delete(id)) return
        reject(new TimeoutError(`${method} took longer than ${timeoutMs} ms`))
        if (++this.timeouts >= MAX_TIMEOUTS && this.child === child) {
          this.log("warn", `ocmem serve did not answer ${MAX_TIMEOUTS} times in a row; restarting it`)
          this.timeouts = 0
          this.drop(child, new Error("ocmem serve hung"))
          child.kill("SIGKILL")
        }
      }, timeoutMs)
      timer.unref?.()
      const settle = (fn) => (v) => {
        clearTimeout(timer)
        fn(v)
      }
      this.pending.set(id, {
        child,
        done: settle((v) => {
          this.timeouts = 0
          resolve(v)
        }),
        fail: settle(reject),
      })
      try {
        child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n")
      } catch (err) {
        this.pending.get(id)?.fail(err)
        this.pending.delete(id)
      }
    })
  }
}

class TimeoutError extends Error {}

// REFUSAL_CODES are serve's error codes for a tool call it refused before
// touching anything: 1 (a secret, a path outside the root, a rule only a
// person may change) and -32602 (arguments the contract does not allow).
// The reply says so in its first words: OpenCode 2's TUI marks every tool
// result that returns as done.
const REFUSAL_CODES = new Set([1, -32602])

// toolFailure is what the model is told of serve's error for a tool call.
function toolFailure(err) {
  return REFUSAL_CODES.has(err.code) ? `ocmem refused: ${err.message}` : `ocmem: ${err.message}`
}

class RPCError extends Error {
  constructor(e) {
    super(typeof e?.message === "string" ? e.message : "unknown error")
    this.code = e?.code
  }
}

// The tool helper is @opencode-ai/plugin's `tool` (its schema is zod).
// OpenCode installs that package into its config folders; Node finds it
// from this file only if the file lies below one of them, so the folders
// are also tried directly. Without it there are no tools, but injection
// still works.
async function loadTool(worktree, directory) {
  const configHome = process.env.XDG_CONFIG_HOME || path.join(os.homedir(), ".config")
  const dirs = [process.env.OPENCODE_CONFIG_DIR, path.join(configHome, "opencode"), directory && path.join(directory, ".opencode"), worktree && path.join(worktree, ".opencode")]
  const specs = ["@opencode-ai/plugin"]
  for (const d of dirs) {
    if (d) specs.push(pathToFileURL(path.join(d, "node_modules", "@opencode-ai", "plugin", "dist", "index.js")).href)
  }
  for (const spec of specs) {
    try {
      const mod = await import(spec)
      if (typeof mod.tool === "function" && mod.tool.schema) return mod.tool
    } catch {}
  }
  return null
}

// ---- tool contract (generated) ----
// Generated from internal/toolspec by `go generate ./plugin`; do not edit.
const TOOLS = [
  {
    "name": "memory_recall",
    "method": "recall",
    "description": "Search durable memory (this project's and the user's global notes, kept across sessions) for decisions, preferences, pitfalls and conventions. Use it before non-trivial work when the memory outline lists something related, when the user refers to earlier work, or for an error message. Returns each matching memory in full, with the reasons it matched.",
    "input": {
      "type": "object",
      "properties": {
        "query": {
          "type": "string",
          "description": "what to look for: keywords, a question or an error message, in any language"
        },
        "limit": {
          "type": "integer",
          "description": "at most this many memories (default 5, at most 20)"
        }
      },
      "required": [
        "query"
      ],
      "additionalProperties": false
    },
    "readOnly": true
  },
  {
    "name": "memory_remember",
    "method": "remember",
    "description": "Save one durable memory as a Markdown file. Worth saving: user preferences, architecture decisions with their reasons, non-obvious pitfalls with their root cause, project conventions the code does not show. Not worth saving: what the code already shows, the current task's state, branch names, local paths, one-off chatter; secrets are refused. One memory per fact; to replace an outdated one, pass its id as supersedes. A rule you save becomes a proposal that a person must accept.",
    "input": {
      "type": "object",
      "properties": {
        "category": {
          "type": "string",
          "description": "the folder: one name, usually the plural of the kind (decisions, pitfalls, preferences, facts, rules)"
        },
        "kind": {
          "type": "string",
          "description": "what the memory is; a rule is stored as a rule proposal until a person accepts it",
          "enum": [
            "rule",
            "preference",
            "decision",
            "pitfall",
            "fact"
          ]
        },
        "summary": {
          "type": "string",
          "description": "one sentence that makes sense on its own, shown in the index"
        },
        "body": {
          "type": "string",
          "description": "context, the decision or root cause, and the reason"
        },
        "highlight": {
          "type": "string",
          "description": "the single most useful detail"
        },
        "load_when": {
          "type": "array",
          "items": {
            "type": "string"
          },
          "description": "keywords and situations in which the memory should come back, any language"
        },
        "pinned": {
          "type": "boolean",
          "description": "never fades with age and is never superseded automatically"
        },
        "supersedes": {
          "type": "string",
          "description": "id of an outdated memory this one replaces (kept for history, no longer recalled)"
        },
        "anchors": {
          "type": "array",
          "items": {
            "type": "string"
          },
          "description": "the code the memory is about, so that it is flagged when that code changes: paths relative to the project root (a file, a folder or a glob), a file optionally with #Symbol (internal/api/server.go#ListenPort); each must exist now. Without it, the paths and backticked identifiers the text names are used"
        },
        "scope": {
          "type": "string",
          "description": "project (this repository, the default inside one) or global (this user, everywhere; only in a project the user trusts)",
          "enum": [
            "project",
            "global"
          ]
        },
        "enforce": {
          "type": "object",
          "description": "for kind rule only: the tool calls that break the rule, in the shape of OpenCode's permission setting, tool name to pattern to deny, ask or allow, e.g. {\"bash\": {\"git push --force*\": \"deny\"}, \"edit\": {\"dist/**\": \"deny\"}}; bash patterns match each command as it would run, file-tool patterns are path globs relative to the project; it stops nothing until a person accepts the rule"
        }
      },
      "required": [
        "category",
        "kind",
        "summary",
        "body"
      ],
      "additionalProperties": false
    },
    "refused": "nothing was written"
  },
  {
    "name": "memory_forget",
    "method": "forget",
    "description": "Delete one memory that is wrong or obsolete, by its id (\u003ccategory\u003e/\u003cslug\u003e, as recall and inspect show it). Use only when the user asks or a memory is plainly wrong. Ids that leave the memory folder are refused.",
    "input": {
      "type": "object",
      "properties": {
        "id": {
          "type": "string",
          "description": "the memory's id, \u003ccategory\u003e/\u003cslug\u003e"
        },
        "scope": {
          "type": "string",
          "description": "project or global; needed only when the id exists in both",
          "enum": [
            "project",
            "global"
          ]
        }
      },
      "required": [
        "id"
      ],
      "additionalProperties": false
    },
    "refused": "nothing was deleted"
  },
  {
    "name": "memory_inspect",
    "method": "inspect",
    "description": "List every memory and check the memory folders for problems: stale indexes, broken supersede links, duplicate ids, files that do not parse.",
    "input": {
      "type": "object",
      "properties": {},
      "additionalProperties": false
    },
    "readOnly": true
  }
]
const EXTRACT_AGENT = "ocmem-extract"
// ---- end of tool contract ----

// Reads are sent again, once, to a new child when the one they went to died
// (it may have been dead already, before the plugin heard of it). Writes are
// not: the dead child may have done them. The tools that only read say so
// in the contract.
const RETRY_ONCE = new Set(["system", "message", ...TOOLS.filter((t) => t.readOnly).map((t) => t.method)])

// zodArg turns one property of a tool's input schema (the contract's JSON
// Schema) into its zod schema.
function zodArg(z, p, required) {
  let s
  switch (p.type) {
    case "string":
      s = p.enum ? z.enum(p.enum) : z.string()
      break
    case "integer":
      // A number: the servers decode it as an integer and clamp it.
      s = z.number()
      break
    case "boolean":
      s = z.boolean()
      break
    case "array":
      // Lists of strings, the only arrays the contract has.
      s = z.array(z.string())
      break
    case "object":
      // Any object: ocmem checks its shape and says what is wrong, and
      // its keys keep their order (the guards' order) on the way.
      s = z.record(z.string(), z.any())
      break
  }
  return (required ? s : s.optional()).describe(p.description)
}

// describeTools builds the four tools from the contract above.
function describeTools(tool) {
  const z = tool.schema
  const out = {}
  for (const t of TOOLS) {
    const args = {}
    for (const [name, p] of Object.entries(t.input.properties)) args[name] = zodArg(z, p, t.input.required?.includes(name))
    out[t.name] = { description: t.description, args, method: t.method, ...WRITES[t.method] }
  }
  return out
}

// WRITES are the tools that write files, and what to tell the model when
// the edit permission refuses them.
const refusedBy = (method) => TOOLS.find((t) => t.method === method)?.refused
const WRITES = {
  remember: { writes: true, refused: refusedBy("remember") },
  forget: { writes: true, refused: refusedBy("forget") },
}

// editsOf asks serve which root a write acts on and which files it
// touches, named as OpenCode's permission patterns name them (".memory/…",
// "~/…"): a write without a scope goes to a root only the engine knows.
// The call then carries that scope, so it acts on the root asked about.
async function editsOf(call, method, args) {
  const res = await call("edits", { tool: method, args }, INJECT_TIMEOUT_MS)
  const files = Array.isArray(res?.files) ? res.files.filter((f) => typeof f === "string") : []
  if (typeof res?.scope !== "string" || !res.scope || files.length === 0) throw new Error("ocmem serve did not say which files the write touches")
  return { scope: res.scope, files, args: { ...args, scope: res.scope } }
}

// mayEdit asks OpenCode whether the agent that called a tool may edit
// these files, under the same edit permission as OpenCode's own edit tools:
// the Plan agent and `"edit": "deny"` refuse, `"ask"` asks the person, the
// default allows. It returns null when allowed, else what to tell the model.
// metadata is what the permission prompt shows: serve's preview of the
// write ({filepath, diff}, as OpenCode's own edit tool passes), or nothing.
async function mayEdit(ctx, patterns, refused, metadata) {
  if (typeof ctx?.ask !== "function") return null
  try {
    await ctx.ask({ permission: "edit", patterns, always: patterns, metadata: metadata ?? {} })
    return null
  } catch (err) {
    const agent = ctx.agent ? `the ${ctx.agent} agent` : "this agent"
    return `ocmem refused: ${agent} is not allowed to edit files (OpenCode's edit permission: ${err?.message ?? err}), so ${refused}. Memory tools that only read (memory_recall, memory_inspect) still work.`
  }
}

// contextCalls are one plugin instance's calls into serve, on either
// OpenCode line: call, with the instance's context (roots, directory,
// options) spread last, so nothing in params can name another repository;
// failOpen, which runs a hook body and logs, never throws, whatever goes
// wrong in it.
// before runs ahead of every call.
function contextCalls(serve, base, log, before) {
  const call = (method, params, timeoutMs) => {
    before()
    return serve.request(method, { ...params, ...base }, timeoutMs)
  }
  const failOpen = async (what, fn) => {
    try {
      await fn()
    } catch (err) {
      // A missing binary was reported once; a line per hook would bury it.
      if (err instanceof MissingError) return
      log("warn", `${what} skipped: ${err?.message ?? err}`)
    }
  }
  return { call, failOpen }
}

// toolGuard returns check(name, args, sessionID, callID): null when the
// call may run, else the text the model reads instead of the call's
// result. The decision is serve's (the check method, the same for both
// lines and for `ocmem check`); the plugin keeps only the list of tools a
// rule in force guards (from every system and check reply), so that while
// serve cannot answer, calls of those tools are refused and the person is
// told, once per interruption, that enforcement is interrupted. Before
// serve has ever answered no rule is known, and nothing is refused: a
// missing binary must not stop every tool.
function toolGuard(call, toast, canAsk) {
  // A file's new content can be megabytes that no guard reads (serve takes
  // 4 MiB a request): long strings go as "", except those a guard reads
  // whole, a command and a patch (which names its files).
  const whole = new Set(["command", "patchText", "patch_text", "patch", "input"])
  const slim = (args) => {
    if (!args || typeof args !== "object") return {}
    const out = {}
    for (const [k, v] of Object.entries(args)) out[k] = typeof v === "string" && v.length > 65536 && !whole.has(k) ? "" : v
    return out
  }
  let guarded = new Set()
  let interrupted = false
  const learn = (res) => {
    if (Array.isArray(res?.guarded)) guarded = new Set(res.guarded)
  }
  const check = async (name, args, sessionID, callID) => {
    let res
    try {
      res = await call("check", { sessionID, tool: name, callID: String(callID ?? ""), args: slim(args) }, CHECK_TIMEOUT_MS)
    } catch (err) {
      if (!guarded.has(name) && !guarded.has("*")) return null
      if (!interrupted) {
        interrupted = true
        toast(`rule enforcement is interrupted: ocmem cannot check tool calls (${err?.message ?? err}); calls of guarded tools are refused until it answers`, "error", sessionID)
      }
      return `ocmem: this ${name} call was refused: a hard rule the user set guards ${name}, and ocmem could not check the call (${err?.message ?? err}). It did not run. Ask the user to run it themselves or to restore ocmem.`
    }
    interrupted = false
    learn(res)
    if (!res?.action) return null
    if (res.action === "ask" && canAsk) return { ask: res }
    if (res.notice) toast(res.notice, "warning", sessionID)
    return res.message || `ocmem: this ${name} call was stopped by a hard rule the user set.`
  }
  return { check, learn }
}

// TITLE_PROMPT opens the system prompt of OpenCode's title agent (1.18.33).
const TITLE_PROMPT = "You are a title generator"

function isTitleRequest(output) {
  return Array.isArray(output?.system) && output.system.some((s) => typeof s === "string" && s.startsWith(TITLE_PROMPT))
}

// The bodies part the plugin adds to a user message is stored with
// ignored: true, which OpenCode leaves out of every request it builds
// straight from the stored messages: the title request (1.18.33 sends the
// first user message to its title agent as stored). Before each agent
// request, experimental.chat.messages.transform gets the session's
// messages, and there the part is given back (ignored: false, on a copy:
// the stored message and the title request's copy stay as they are).
const BODIES_MARK = "ocmem-bodies"

function isBodiesPart(p) {
  return p?.type === "text" && p.metadata?.ocmem === BODIES_MARK
}

function giveBodiesBack(messages) {
  if (!Array.isArray(messages)) return
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]
    if (!Array.isArray(m?.parts) || !m.parts.some((p) => isBodiesPart(p) && p.ignored)) continue
    messages[i] = { ...m, parts: m.parts.map((p) => (isBodiesPart(p) && p.ignored ? { ...p, ignored: false } : p)) }
  }
}

// checkPathBinary: the ocmem on PATH stands in for the package's missing
// binary: which version it is goes to the log, and one that is not the
// plugin's is told to the person too, once per process.
function checkPathBinary(serve, bin, tried, log, toast) {
  if (bin !== "ocmem" || tried.length < 2 || serve.pathChecked) return
  serve.pathChecked = true
  serve
    .request("ping", {}, INJECT_TIMEOUT_MS)
    .then((res) => {
      const v = typeof res?.version === "string" ? res.version : "unknown"
      log("info", `the ocmem on PATH runs, version ${v} (looked at: ${tried.join(", ")})`)
      if (PACKAGE_VERSION && v !== PACKAGE_VERSION) {
        const msg = `the ocmem on PATH (version ${v}) runs in place of ocmem@${PACKAGE_VERSION}'s missing binary. To repair it, ${repairHint()}.`
        log("warn", msg)
        toast(msg, "warning")
      }
    })
    .catch(() => {})
}

async function server(input, options) {
  options = options && typeof options === "object" ? options : {}
  const client = input.client
  // client.app.log is not awaited: during plugin loading, awaiting a call
  // into OpenCode's own server deadlocks it (1.18.33).
  const log = (level, message) => {
    try {
      client?.app?.log?.({ body: { service: SERVICE, level, message } })?.catch?.(() => {})
    } catch {}
  }
  // toast shows the person a short message in OpenCode's own way
  // (client.tui.showToast, POST /tui/show-toast), unless the toasts option
  // is false. Not awaited, like log.
  const toastsOn = options.toasts !== false
  const toast = (message, variant = "info") => {
    if (!toastsOn) return
    try {
      client?.tui?.showToast?.({ body: { title: SERVICE, message, variant, duration: variant === "info" ? 4000 : 8000 } })?.catch?.(() => {})
    } catch {}
  }
  const worktree = input.project?.worktree || input.worktree || input.directory
  const first = loadedElsewhere(input.directory || worktree)
  if (first) {
    log("info", steppedAside(input.directory || worktree, first))
    return {}
  }
  const { bin, tried } = binary(options)
  let serve = servers.get(bin)
  if (!serve) servers.set(bin, (serve = new Serve(bin, log, tried)))
  // Kept, not called: serve asks for it only after an idle, once loading
  // is long done.
  serve.client ??= client
  serve.notify ??= toast

  // The roots come from OpenCode's context only: base goes last, so no
  // params can name another repository.
  const base = { worktree, directory: input.directory, options }
  const { call, failOpen } = contextCalls(serve, base, log, () => checkPathBinary(serve, bin, tried, log, toast))
  // 1.x offers a plugin no permission prompt of its own: ask is refused.
  const guard = toolGuard(call, toast, false)

  const hooks = {
    "experimental.chat.system.transform": (inp, output) =>
      failOpen("system injection", async () => {
        // OpenCode's title request runs this hook too, with the same
        // input; its system prompt (1.18.33) is how it can be told apart.
        // A title needs no hard rules and no outline.
        if (isTitleRequest(output)) return
        const res = await call("system", { sessionID: inp?.sessionID }, INJECT_TIMEOUT_MS)
        guard.learn(res)
        if (res?.warning) toast(res.warning, "warning")
        if (res?.text) output.system.push(res.text)
      }),

    "chat.message": (inp, output) =>
      failOpen("memory injection", async () => {
        const parts = output.parts ?? []
        const text = parts
          .filter((p) => p.type === "text" && !p.synthetic && !p.ignored)
          .map((p) => p.text)
          .join("\n")
        if (!text.trim()) return
        const msg = output.message
        const res = await call("message", { sessionID: inp.sessionID, messageID: msg.id, text }, INJECT_TIMEOUT_MS)
        if (res?.notice) toast(res.notice)
        if (!res?.text) return
        // OpenCode rejects a part whose id does not start with "prt", and
        // with it the whole turn. Parts sort by id: the user's last part id
        // plus a suffix lands right after it.
        const last = parts[parts.length - 1]
        const id = last?.id?.startsWith("prt") ? last.id + "ocmem" : "prt_" + String(msg.id).replace(/^msg_?/, "") + "ocmem"
        parts.push({
          id,
          sessionID: msg.sessionID ?? inp.sessionID,
          messageID: msg.id,
          type: "text",
          text: res.text,
          synthetic: true,
          ignored: true,
          metadata: { ocmem: BODIES_MARK },
        })
      }),

    // The agent's requests get the bodies back (see giveBodiesBack).
    "experimental.chat.messages.transform": async (inp, output) => {
      try {
        giveBodiesBack(output?.messages)
      } catch (err) {
        log("warn", `memory bodies not given back: ${err?.message ?? err}`)
      }
    },

    // Rules that bind: a call a rule in force stops does not run. A hook
    // that throws stops the call, and OpenCode gives the model the error's
    // message as the tool's result. ocmem's own tools are not guarded.
    "tool.execute.before": async (inp, output) => {
      const name = inp?.tool
      if (typeof name !== "string" || !name || hooks.tool?.[name]) return
      const refusal = await guard.check(name, output?.args, inp.sessionID, inp.callID)
      if (refusal) throw new Error(refusal)
    },

    // Which tools the model called, for the session timeline of `ocmem ui`;
    // serve logs ocmem's own tools itself. Not awaited: a tool call never
    // waits for the log.
    "tool.execute.after": async (inp) => {
      const name = inp?.tool
      if (typeof name !== "string" || !name || hooks.tool?.[name]) return
      call("tool", { sessionID: inp.sessionID, tool: name, callID: String(inp.callID ?? "") }, INJECT_TIMEOUT_MS).catch(() => {})
    },

    event: async ({ event }) => {
      // After a compaction the summary may have dropped the memories given
      // so far: serve forgets them, so they can be given again.
      if (event?.type === "session.compacted") {
        const sessionID = event.properties?.sessionID
        if (!sessionID) return
        call("compacted", { sessionID }, IDLE_TIMEOUT_MS).catch((err) => {
          if (!(err instanceof MissingError)) log("warn", `compaction not noted: ${err?.message ?? err}`)
        })
        return
      }
      if (event?.type !== "session.idle") return
      const sessionID = event.properties?.sessionID
      call("idle", { sessionID, serverUrl: String(input.serverUrl ?? "") }, IDLE_TIMEOUT_MS).catch((err) => {
        if (!(err instanceof MissingError)) log("warn", `idle skipped: ${err?.message ?? err}`)
      })
    },

    config: async (cfg) => {
      try {
        cfg.agent ??= {}
        cfg.agent[EXTRACT_AGENT] ??= {
          mode: "primary",
          hidden: true,
          description: "ocmem: extracts durable memories from a finished session",
          permission: { "*": "deny" },
          prompt: "You extract durable memories from a coding session transcript. Follow the instructions in the message exactly and answer with the requested JSON only.",
        }
      } catch (err) {
        log("warn", `config hook skipped: ${err?.message ?? err}`)
      }
    },
  }

  const tool = await loadTool(worktree, input.directory)
  if (!tool) {
    log("error", "@opencode-ai/plugin not found: memory tools are off (injection still works)")
  } else {
    hooks.tool = {}
    for (const [name, def] of Object.entries(describeTools(tool))) {
      hooks.tool[name] = tool({
        description: def.description,
        args: def.args,
        async execute(args, ctx) {
          try {
            let sent = args ?? {}
            if (def.writes) {
              const ed = await editsOf(call, def.method, sent)
              let metadata = null
              if (typeof ctx?.ask === "function") {
                // The person asked to approve the write sees the file and
                // its text: serve previews it (writing nothing). A write
                // serve would refuse is refused now, without asking.
                metadata = await call(`preview.${def.method}`, { args: ed.args, sessionID: ctx?.sessionID }, TOOL_TIMEOUT_MS)
              }
              const no = await mayEdit(ctx, ed.files, def.refused, metadata)
              if (no) {
                log("info", `${name} refused: the ${ctx?.agent ?? "current"} agent may not edit files`)
                return no
              }
              sent = ed.args
            }
            // The model's arguments travel apart from the context, as
            // "args"; serve refuses any key the tool contract does not name.
            const res = await call(def.method, { args: sent, sessionID: ctx?.sessionID }, TOOL_TIMEOUT_MS)
            if (res?.notice) toast(res.notice)
            return typeof res?.text === "string" ? res.text : ""
          } catch (err) {
            if (err instanceof RPCError) return toolFailure(err)
            if (err instanceof MissingError) return `ocmem unavailable: ${err.message}; the person was told`
            log("warn", `${name} failed: ${err?.message ?? err}`)
            return `ocmem unavailable: ${err?.message ?? err}`
          }
        },
      })
    }
  }
  log("info", `loaded (serve: ${bin}, worktree: ${worktree}; looked at: ${tried.join(", ")})`)
  return hooks
}

// ---- OpenCode 2 ----
//
// OpenCode 2 calls setup(ctx) instead of server(): hooks, tools and events
// are registered through ctx, and there is no server client and no log API
// (docs/OPENCODE-NOTES.md, "OpenCode 2"). The same `ocmem serve` answers.

// isV2 tells OpenCode 2's context from the partial one 1.18.33 also passes
// to setup() (it has no session, tool or event).
function isV2(ctx) {
  return typeof ctx?.session?.hook === "function" && typeof ctx?.tool?.transform === "function" && typeof ctx?.event?.subscribe === "function"
}

// openInput is a tool's input schema as OpenCode 2 is given it: without
// additionalProperties. OpenCode 2 drops the keys a schema does not allow
// before the tool sees them, and serve must see a key the contract does not
// have (a root, a session) to refuse the call and tell the model why.
function openInput(t) {
  const { additionalProperties, ...input } = structuredClone(t.input)
  return input
}

// globMatch is OpenCode's permission pattern match: `*` matches any run of
// characters, `/` included; `?` one character.
function globMatch(pattern, text) {
  if (typeof pattern !== "string") return false
  const re = pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".")
  return new RegExp("^" + re + "$", "s").test(text)
}

// editEffect is what an agent's permission rules (OpenCode 2: a list of
// {action, resource, effect}, the last match wins) say about editing each
// of these files: "deny" if any is denied, else the last effect found.
function editEffect(rules, resources) {
  let effect = "allow"
  for (const resource of resources) {
    let e = "allow"
    for (const r of rules) {
      if ((r?.action === "edit" || r?.action === "*") && globMatch(r.resource, resource)) e = r.effect
    }
    if (e === "deny") return "deny"
    if (e === "ask") effect = "ask"
  }
  return effect
}

// memoryResources names the files a write touches, as OpenCode 2's edit
// rules name them: relative to the worktree, absolute under it, and the
// global root under the home folder ("~/" in a rule is expanded).
function memoryResources(patterns, worktree) {
  const home = os.homedir()
  const out = []
  for (const p of patterns) {
    if (p.startsWith("~/")) out.push(path.join(home, p.slice(2)).split(path.sep).join("/"))
    else {
      out.push(p)
      if (worktree) out.push(path.join(worktree, p).split(path.sep).join("/"))
    }
  }
  return out
}

// NO_SERVER_URL is the serverUrl sent with idle on OpenCode 2, which gives
// plugins no server: a name that never resolves (.invalid, RFC 2606), so
// serve's extraction goes through the plugin (opencode.fetch).
const NO_SERVER_URL = "http://opencode2.invalid/"

const unwrap = (r) => (r && typeof r === "object" && "data" in r && !Array.isArray(r) ? r.data : r)

// v2Message is an OpenCode 2 session message as OpenCode 1.x's HTTP API
// gives it ({info, parts}), for extraction; null for what is neither the
// person's nor the model's words (synthetic messages, ocmem's bodies among
// them; reminders, idle marks).
function v2Message(m, sessionID) {
  const time = { created: m?.time?.created ?? 0 }
  if (m?.type === "user") {
    return { info: { id: m.id, sessionID, role: "user", agent: m.agent, time }, parts: [{ type: "text", text: String(m.text ?? "") }] }
  }
  if (m?.type !== "assistant") return null
  const parts = []
  for (const c of Array.isArray(m.content) ? m.content : []) {
    if (c?.type === "text") parts.push({ type: "text", text: String(c.text ?? "") })
    else if (c?.type === "tool") parts.push({ type: "tool", tool: String(c.name ?? c.tool ?? "") })
    else if (typeof c?.type === "string") parts.push({ type: c.type })
  }
  const info = { id: m.id, sessionID, role: "assistant", agent: m.agent, providerID: m.model?.providerID, modelID: m.model?.id, time: { ...time, completed: m.time?.completed ?? 0 } }
  if (m.error) info.error = { name: String(m.error.name ?? m.error.type ?? "Error"), data: { message: String(m.error.message ?? m.error.data?.message ?? "") } }
  return { info, parts }
}

// v2Providers is OpenCode 2's model list as OpenCode 1.x's GET
// /config/providers gives it: ids, names, costs, limits and capabilities
// (never a provider's settings, which hold its keys).
function v2Providers(models) {
  const providers = new Map()
  for (const m of Array.isArray(models) ? models : []) {
    if (!m || m.enabled === false || !m.providerID) continue
    const id = m.modelID ?? m.id
    const cost = Array.isArray(m.cost) ? m.cost[0] : m.cost
    const caps = m.capabilities ?? {}
    const has = (list, what) => (Array.isArray(list) ? list.includes(what) : !!list?.[what])
    if (!providers.has(m.providerID)) providers.set(m.providerID, { id: m.providerID, name: m.providerID, source: "config", models: {} })
    providers.get(m.providerID).models[id] = {
      id, providerID: m.providerID, name: String(m.name ?? id), status: m.status,
      cost: { input: Number(cost?.input ?? 0), output: Number(cost?.output ?? 0) },
      limit: { context: Number(m.limit?.context ?? 0), output: Number(m.limit?.output ?? 0) },
      capabilities: { input: { text: has(caps.input, "text") }, output: { text: has(caps.output, "text") } },
    }
  }
  return { providers: [...providers.values()], default: {} }
}

// v2Fetcher answers the requests serve's extraction makes in OpenCode
// 1.x's HTTP API (internal/opencode) from OpenCode 2's plugin context: the
// transcript from session.context, the model call from generate.text (one
// stateless request: no session of its own, nothing in the person's). The
// "sessions" extraction creates for its prompt exist only here.
function v2Fetcher(ctx, directory) {
  let next = 0
  const json = (status, v) => ({ status, body: JSON.stringify(v), headers: { "content-type": "application/json" } })
  return async ({ method = "GET", path: p, body }) => {
    const url = new URL(String(p ?? "/"), NO_SERVER_URL)
    const seg = url.pathname.split("/").filter(Boolean).map(decodeURIComponent)
    const req = typeof body === "string" && body ? JSON.parse(body) : {}
    const route = `${method} /${seg.map((x, i) => (i === 1 && seg[0] === "session" && x !== "status" ? ":id" : x)).join("/")}`
    switch (route) {
      case "GET /config/providers":
        return json(200, v2Providers(unwrap(await ctx.model.list())))
      case "GET /agent":
        // Extraction asks for its agent only to have no tools and a short
        // prompt; generate.text has neither.
        return json(200, [{ name: EXTRACT_AGENT, mode: "primary", hidden: true }])
      case "GET /session/status":
        return json(200, {})
      case "POST /session":
        return json(200, { id: `ses_ocmem_extract_${Date.now()}_${++next}`, title: String(req.title ?? ""), directory })
      case "DELETE /session/:id":
      case "POST /session/:id/abort":
        return json(200, true)
      case "GET /session/:id": {
        let s
        try {
          s = unwrap(await ctx.session.get({ sessionID: seg[1] }))
        } catch (err) {
          return json(404, { name: "NotFoundError", data: { message: String(err?.message ?? err) } })
        }
        return json(200, { id: s.id, title: String(s.title ?? ""), directory: s.location?.directory ?? directory, parentID: s.parentID, projectID: s.projectID })
      }
      case "GET /session/:id/message": {
        const msgs = unwrap(await ctx.session.context({ sessionID: seg[1] }))
        return json(200, (Array.isArray(msgs) ? msgs : []).map((m) => v2Message(m, seg[1])).filter(Boolean))
      }
      case "POST /session/:id/message": {
        const text = [req.system, ...(req.parts ?? []).map((x) => x?.text)].filter((x) => typeof x === "string" && x).join("\n\n")
        const model = req.model?.modelID ? { id: req.model.modelID, providerID: req.model.providerID } : undefined
        const created = Date.now()
        const res = unwrap(await ctx.generate.text({ prompt: text, ...(model ? { model } : {}) }))
        return json(200, { info: { id: `msg_ocmem_${created}`, sessionID: seg[1], role: "assistant", time: { created, completed: Date.now() } }, parts: [{ type: "text", text: String(res?.text ?? "") }] })
      }
    }
    return json(404, { name: "NotFoundError", data: { message: `${method} ${url.pathname}: not answered on OpenCode 2` } })
  }
}

// ---- OpenCode 2 toasts ----
//
// OpenCode 2 shows a plugin's toasts only from the plugin's TUI entry
// (`tui.js` beside this file, the package's "./tui" export), which runs in
// the TUI's process, not in the server's where setup() runs. setup()
// registers an RPC of its own with one event, notice, and emits each notice
// on it; the TUI entry subscribes to that event through its client and
// shows it with ui.toast.show. Under `opencode run` there is no TUI and
// nothing shows. The TUI entry gets no plugin options, so "toasts": false
// is honoured here: nothing is emitted.
const NOTICE_RPC = {
  id: SERVICE,
  methods: {},
  events: {
    notice: {
      schema: {
        type: "object",
        properties: {
          message: { type: "string" },
          variant: { type: "string", enum: ["info", "success", "warning", "error"] },
          sessionID: { type: "string" },
        },
        required: ["message"],
      },
    },
  },
}

// noticeEmitter returns toast(message, variant, sessionID) for setup():
// it emits the notice for the TUI entry, unless the toasts option is
// false or OpenCode has no RPC for plugins. Not awaited, like 1.18's
// showToast. toast.on says whether notices go anywhere.
async function noticeEmitter(ctx, options) {
  let events = null
  if (options.toasts !== false && typeof ctx.rpc?.register === "function") {
    try {
      events = (await ctx.rpc.register(NOTICE_RPC, {}))?.events ?? null
    } catch {}
  }
  const toast = (message, variant = "info", sessionID) => {
    if (typeof events?.emit !== "function" || typeof message !== "string" || !message) return
    try {
      events.emit("notice", { message, variant, ...(typeof sessionID === "string" && sessionID ? { sessionID } : {}) })?.catch?.(() => {})
    } catch {}
  }
  toast.on = typeof events?.emit === "function"
  return toast
}

const VARIANTS = new Set(["info", "success", "warning", "error"])

// tui is the TUI entry's plugin (tui.js exports it as its default): it
// shows setup()'s notices as toasts, titled ocmem, an info one for 4 s,
// the others for 8 s as on 1.18. A notice about a session that is not the
// one on screen gets OpenCode's "Open" action to go there. It returns the
// subscription's end, which OpenCode calls when the plugin is unloaded.
export const tui = {
  id: SERVICE,
  setup: async (ctx) => {
    // Two registrations give the TUI two copies of this entry: one shows
    // the notices, or each would show up twice.
    if (loadedElsewhere(TUI_KEY)) return
    const rpc = ctx?.client?.rpc?.(NOTICE_RPC)
    if (typeof rpc?.events?.on !== "function" || typeof ctx?.ui?.toast?.show !== "function") return
    return rpc.events.on("notice", (ev) => {
      const d = ev?.data
      if (typeof d?.message !== "string" || !d.message) return
      const variant = VARIANTS.has(d.variant) ? d.variant : "info"
      try {
        ctx.ui.toast.show({
          title: SERVICE,
          message: d.message,
          variant,
          duration: variant === "info" ? 4000 : 8000,
          ...(typeof d.sessionID === "string" && d.sessionID ? { sessionID: d.sessionID } : {}),
        })
      } catch {}
    })
  },
}

async function setup(ctx) {
  if (!isV2(ctx)) return
  const options = ctx.options && typeof ctx.options === "object" ? ctx.options : {}
  // OpenCode 2 has no log API for plugins and drops what they print; a
  // plugin's stdout may even carry its protocol. So nothing is printed:
  // serve logs everything it is asked, and its failures are shown as
  // tool replies.
  const log = () => {}
  const directory = ctx.location?.directory
  const worktree = ctx.location?.project?.directory || directory
  if (loadedElsewhere(directory || worktree)) return
  const toast = await noticeEmitter(ctx, options)
  const { bin, tried } = binary(options)
  let serve = servers.get(bin)
  if (!serve) servers.set(bin, (serve = new Serve(bin, log, tried)))
  serve.notify ??= toast

  serve.v2fetch ??= v2Fetcher(ctx, directory)
  const base = { worktree, directory, options }
  const { call, failOpen } = contextCalls(serve, base, log, () => checkPathBinary(serve, bin, tried, log, toast))
  // No permission prompt is offered to a plugin's hook on 2.0.15 either
  // (ctx.permission can hook, list and reply, not ask): ask is refused.
  const guard = toolGuard(call, toast, false)

  // Hard rules and outline: before every model request of a turn (the
  // title request has hooks of its own and gets neither).
  await ctx.session.hook("context", (e) =>
    failOpen("system injection", async () => {
      if (!Array.isArray(e?.system)) return
      const res = await call("system", { sessionID: e.sessionID }, INJECT_TIMEOUT_MS)
      guard.learn(res)
      if (res?.warning) toast(res.warning, "warning", e.sessionID)
      if (res?.text) e.system.push({ type: "text", text: res.text })
    }),
  )

  // Bodies: once per person's message, as a synthetic message of the
  // session, which OpenCode keeps in the history (so later turns have it)
  // and sends to the model as a user message of its own, apart from the
  // person's words; the title request does not get it. Added from the
  // prompt hook it lands right before the person's message, as OpenCode's
  // own reminders do.
  await ctx.session.hook("prompt", (e) =>
    failOpen("memory injection", async () => {
      const text = typeof e?.prompt?.text === "string" ? e.prompt.text : ""
      if (!text.trim() || !e.sessionID) return
      const res = await call("message", { sessionID: e.sessionID, messageID: e.messageID, text }, INJECT_TIMEOUT_MS)
      if (res?.notice) toast(res.notice, "info", e.sessionID)
      if (!res?.text) return
      await ctx.session.synthetic({ sessionID: e.sessionID, text: res.text, metadata: { source: SERVICE }, resume: false })
    }),
  )

  await ctx.tool.transform((tools) => {
    for (const t of TOOLS) {
      const writes = WRITES[t.method]
      tools.add({
        name: t.name,
        description: t.description,
        input: openInput(t),
        // codemode false: offered to the model directly, as on 1.18, not
        // only through OpenCode 2's `execute` tool. "edit": a config that
        // denies edits removes the two writers.
        options: { codemode: false, ...(writes ? { permission: "edit" } : {}) },
        execute: async (input, tctx) => ({ content: await runToolV2(t, writes, input, tctx) }),
      })
    }
  })

  // Which other tools the model called, for the session timeline of `ocmem
  // ui`; serve logs ocmem's own. Not awaited: a tool call never waits for
  // the log.
  const ours = new Set(TOOLS.map((t) => t.name))
  if (typeof ctx.tool.hook === "function") {
    await ctx.tool.hook("execute.after", (e) => {
      const name = typeof e?.tool === "string" ? e.tool : e?.tool?.name ?? e?.tool?.id
      if (typeof name !== "string" || !name || ours.has(name)) return
      call("tool", { sessionID: e.sessionID, tool: name, callID: String(e.id ?? "") }, INJECT_TIMEOUT_MS).catch(() => {})
    })
    // Rules that bind: execute.before gets {tool, sessionID, id, input}
    // before a tool runs; a hook that throws fails the call, and the
    // model reads the error's message as its result.
    await ctx.tool.hook("execute.before", async (e) => {
      const name = typeof e?.tool === "string" ? e.tool : e?.tool?.name ?? e?.tool?.id
      if (typeof name !== "string" || !name || ours.has(name)) return
      const refusal = await guard.check(name, e.input, e.sessionID, e.id)
      if (refusal) throw new Error(refusal)
    })
  }

  // runToolV2 runs one tool call; a write is refused when the calling
  // agent's edit rules deny the memory files (the Plan agent), because
  // OpenCode 2 still offers and runs it there.
  async function runToolV2(t, writes, input, tctx) {
    try {
      let sent = input && typeof input === "object" ? input : {}
      if (writes) {
        const ed = await editsOf(call, t.method, sent)
        const no = await refusedV2(writes, ed.files, tctx)
        if (no) return no
        sent = ed.args
      }
      // As on 1.18: the model's arguments travel apart, as "args", and
      // serve refuses any key the contract does not name.
      const res = await call(t.method, { args: sent, sessionID: tctx?.sessionID }, TOOL_TIMEOUT_MS)
      if (res?.notice) toast(res.notice, "info", tctx?.sessionID)
      return typeof res?.text === "string" ? res.text : ""
    } catch (err) {
      if (err instanceof RPCError) return toolFailure(err)
      if (err instanceof MissingError) return `ocmem unavailable: ${err.message}${toast.on ? "; the person was told" : ""}`
      return `ocmem unavailable: ${err?.message ?? err}`
    }
  }

  async function refusedV2(writes, files, tctx) {
    const agent = tctx?.agent ? `the ${tctx.agent} agent` : "this agent"
    let rules
    try {
      const res = await ctx.agent.get({ agentID: tctx?.agent })
      rules = res?.data?.permissions ?? res?.permissions
    } catch (err) {
      return `ocmem refused: ${agent}'s edit permission could not be read (${err?.message ?? err}), so ${writes.refused}.`
    }
    if (!Array.isArray(rules)) return null
    const effect = editEffect(rules, memoryResources(files, worktree))
    if (effect === "allow") return null
    const why = effect === "deny" ? "edits to these files are denied" : "edits to these files need the person's approval, which OpenCode 2 cannot ask for from a plugin's tool"
    return `ocmem refused: ${agent} is not allowed to edit files (OpenCode's edit permission: ${why}), so ${writes.refused}. Memory tools that only read (memory_recall, memory_inspect) still work.`
  }

  // Events: a finished turn (for extraction) and a compaction (the summary
  // may have dropped the bodies given so far, so they may be given again).
  // Not awaited: subscribe runs for as long as OpenCode does.
  ;(async () => {
    for await (const ev of ctx.event.subscribe()) {
      const sessionID = ev?.data?.sessionID
      if (!sessionID) continue
      if (ev.type === "session.compaction.ended") {
        call("compacted", { sessionID }, IDLE_TIMEOUT_MS).catch(() => {})
      } else if (ev.type === "session.execution.succeeded") {
        call("idle", { sessionID, serverUrl: NO_SERVER_URL }, IDLE_TIMEOUT_MS).catch(() => {})
      }
    }
  })().catch(() => {})
}

export default { id: "ocmem", server, setup }
