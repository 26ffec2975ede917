// ocmem's TUI entry for OpenCode 2: shows the plugin's notices as toasts
// (see "OpenCode 2 toasts" in plugin.js).
export { tui as default } from "./plugin.js"
