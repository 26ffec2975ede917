package toolspec

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// InputSchema is the JSON Schema of the tool's arguments: an object with
// one property per parameter, inferred from the tool's Args struct
// (schemaOf). Bounds are left to the servers, which clamp a limit above the
// maximum rather than fail ([RecallLimit]) and refuse a negative one.
// The caller may change it: it is a copy.
func (t Tool) InputSchema() *jsonschema.Schema { return t.input.CloneSchemas() }

// withArgs is t with its arguments: the input schema inferred from A and
// the parameters read from that schema, so both say the same.
func withArgs[A any](t Tool) Tool {
	t.input = schemaOf[A]()
	t.Params = paramsOf(reflect.TypeFor[A]().Name(), t.input)
	return t
}

// argTypes are the schemas of the Args structs' field types that
// jsonschema.For would infer otherwise: a list of strings is a plain array
// (not ["null","array"], which some providers' schema checks refuse), and
// enforce, raw JSON, is an object whose shape the engine checks.
var argTypes = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[[]string]():        {Type: "array", Items: &jsonschema.Schema{Type: "string"}},
	reflect.TypeFor[json.RawMessage](): {Type: "object"},
}

// schemaOf is the input schema of an Args struct: jsonschema.For's (a
// field's json name is the property, without omitempty it is required, its
// jsonschema tag is the description), with the allowed values an enum tag
// names. It panics on a struct it cannot describe, at start: the structs
// are constant.
func schemaOf[A any]() *jsonschema.Schema {
	rt := reflect.TypeFor[A]()
	s, err := jsonschema.For[A](&jsonschema.ForOptions{TypeSchemas: argTypes})
	if err != nil {
		panic(fmt.Sprintf("toolspec: %s: %v", rt.Name(), err))
	}
	if s.Properties == nil {
		s.Properties = map[string]*jsonschema.Schema{} // inspect's: an object with no properties
	}
	for i := range rt.NumField() {
		f := rt.Field(i)
		e := f.Tag.Get("enum")
		if e == "" {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		p := s.Properties[name]
		if enums[e] == nil || p == nil || p.Type != "string" {
			panic(fmt.Sprintf("toolspec: %s.%s: enum %q", rt.Name(), f.Name, e))
		}
		for _, v := range enums[e] {
			p.Enum = append(p.Enum, v)
		}
	}
	return s
}

// paramsOf is the parameter list of an input schema, in its properties'
// order (the fields'). It panics on a property it cannot describe.
func paramsOf(args string, s *jsonschema.Schema) []Param {
	out := []Param{}
	for _, name := range s.PropertyOrder {
		ps := s.Properties[name]
		p := Param{Name: name, Type: Type(ps.Type), Description: ps.Description, Required: slices.Contains(s.Required, name)}
		for _, v := range ps.Enum {
			p.Enum = append(p.Enum, v.(string))
		}
		switch {
		case !slices.Contains([]Type{String, Integer, Boolean, StringList, Object}, p.Type),
			p.Type == StringList && (ps.Items == nil || ps.Items.Type != "string"):
			panic(fmt.Sprintf("toolspec: %s.%s: no parameter type for %q", args, name, ps.Type))
		case p.Description == "":
			panic(fmt.Sprintf("toolspec: %s.%s needs a jsonschema description", args, name))
		}
		out = append(out, p)
	}
	return out
}

// JS is the plugin's tool table as a JavaScript statement, generated into
// plugin/ocmem.js between the markers JSBegin and JSEnd: each tool's input
// is its InputSchema, which the plugin hands OpenCode 2 as it is and turns
// into zod for OpenCode 1, so it carries no hand-written copy.
func JS() string {
	type jsTool struct {
		Name        string             `json:"name"`
		Method      string             `json:"method"`
		Description string             `json:"description"`
		Input       *jsonschema.Schema `json:"input"`
		ReadOnly    bool               `json:"readOnly,omitempty"`
		Refused     string             `json:"refused,omitempty"`
	}
	tools := make([]jsTool, 0, len(Tools))
	for _, t := range Tools {
		tools = append(tools, jsTool{Name: t.OpenCodeName(), Method: t.Name, Description: t.Description, Input: t.InputSchema(),
			ReadOnly: t.ReadOnly, Refused: t.Refused})
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
