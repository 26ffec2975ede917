package testenv

// contextKeys are the params of a request to serve that come from
// OpenCode's context, not from the model.
var contextKeys = map[string]bool{"worktree": true, "directory": true, "options": true, "sessionID": true}

// ToolParams builds the params of a tool call to serve as the plugin sends
// them from flat test parameters: the context keys at the top, everything
// else inside "args". Params that already have "args" are returned as they
// are, and so are the params of methods other than the four tools.
func ToolParams(method string, flat map[string]any) map[string]any {
	switch method {
	case "recall", "remember", "forget", "inspect":
	default:
		return flat
	}
	if _, ok := flat["args"]; ok {
		return flat
	}
	out := map[string]any{}
	args := map[string]any{}
	for k, v := range flat {
		if contextKeys[k] {
			out[k] = v
		} else {
			args[k] = v
		}
	}
	out["args"] = args
	return out
}
