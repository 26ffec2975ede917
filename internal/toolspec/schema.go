package toolspec

import (
	"encoding/json"
	"fmt"
	"strings"
)

// InputSchema is the JSON Schema of the tool's arguments: an object with
// one property per parameter. load_when is a plain array (not
// ["null","array"], which some providers' schema checks refuse); bounds are
// left to the servers, which clamp rather than fail.
func (t Tool) InputSchema() map[string]any {
	props := map[string]any{}
	required := []string{}
	for _, p := range t.Params {
		s := map[string]any{"type": string(p.Type), "description": p.Description}
		if p.Type == StringList {
			s["items"] = map[string]any{"type": "string"}
		}
		if p.Enum != nil {
			s["enum"] = p.Enum
		}
		props[p.Name] = s
		if p.Required {
			required = append(required, p.Name)
		}
	}
	return map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
}

// JS is the plugin's tool table as a JavaScript statement, generated into
// plugin/ocmem.js between the markers JSBegin and JSEnd: the plugin builds
// its zod schemas from it and carries no hand-written copy.
func JS() string {
	type jsParam struct {
		Name        string   `json:"name"`
		Type        Type     `json:"type"`
		Description string   `json:"description"`
		Enum        []string `json:"enum,omitempty"`
		Required    bool     `json:"required,omitempty"`
	}
	type jsTool struct {
		Name        string    `json:"name"`
		Method      string    `json:"method"`
		Description string    `json:"description"`
		Params      []jsParam `json:"params"`
		ReadOnly    bool      `json:"readOnly,omitempty"`
		Refused     string    `json:"refused,omitempty"`
	}
	tools := make([]jsTool, 0, len(Tools))
	for _, t := range Tools {
		jt := jsTool{Name: t.OpenCodeName(), Method: t.Name, Description: t.Description, Params: []jsParam{},
			ReadOnly: t.ReadOnly, Refused: t.Refused}
		for _, p := range t.Params {
			jt.Params = append(jt.Params, jsParam(p))
		}
		tools = append(tools, jt)
	}
	b, err := json.MarshalIndent(tools, "", "  ")
	if err != nil {
		panic(fmt.Sprintf("toolspec: %v", err)) // plain data: cannot fail
	}
	var sb strings.Builder
	sb.WriteString(JSBegin + "\n")
	sb.WriteString("// Generated from internal/toolspec by `go generate ./plugin`; do not edit.\n")
	sb.WriteString("const TOOLS = ")
	sb.Write(b)
	sb.WriteString("\n" + `const EXTRACT_AGENT = "` + ExtractAgent + `"`)
	sb.WriteString("\n" + JSEnd)
	return sb.String()
}

// The markers around the generated tool table in plugin/ocmem.js.
const (
	JSBegin = "// ---- tool contract (generated) ----"
	JSEnd   = "// ---- end of tool contract ----"
)

// ReplaceJS returns src with the text between the markers (included)
// replaced by JS(), or an error when the markers are missing.
func ReplaceJS(src string) (string, error) {
	i := strings.Index(src, JSBegin)
	j := strings.Index(src, JSEnd)
	if i < 0 || j < i {
		return "", fmt.Errorf("toolspec: the markers %q and %q are not in the plugin source", JSBegin, JSEnd)
	}
	return src[:i] + JS() + src[j+len(JSEnd):], nil
}
