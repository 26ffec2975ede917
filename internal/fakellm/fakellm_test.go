package fakellm

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// result is what a client reconstructs from one answer.
type result struct {
	Status int
	Text   string
	Calls  []ToolCall
	Finish string
	Usage  bool
	Done   bool // streamed answers only: saw data: [DONE]
}

func post(t *testing.T, s *Server, body string) result {
	t.Helper()
	resp, err := http.Post(s.URL+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	res := result{Status: resp.StatusCode}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error struct{ Message string }
		}
		if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
			t.Fatalf("error body: %v", err)
		}
		res.Text = e.Error.Message
		return res
	}
	if ct := resp.Header.Get("Content-Type"); ct == "application/json" {
		var c struct {
			Choices []struct {
				Message struct {
					Content   string
					ToolCalls []ToolCall `json:"tool_calls"`
				}
				FinishReason string `json:"finish_reason"`
			}
			Usage map[string]int
		}
		if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
			t.Fatal(err)
		}
		res.Text = c.Choices[0].Message.Content
		res.Calls = c.Choices[0].Message.ToolCalls
		res.Finish = c.Choices[0].FinishReason
		res.Usage = c.Usage["total_tokens"] > 0
		return res
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("not an SSE data line: %q", line)
		}
		if data == "[DONE]" {
			res.Done = true
			continue
		}
		var chunk struct {
			Object  string
			Choices []struct {
				Delta struct {
					Content   string
					ToolCalls []struct {
						Index int
						ToolCall
					} `json:"tool_calls"`
				}
				FinishReason *string `json:"finish_reason"`
			}
			Usage map[string]int
		}
		if err := json.Unmarshal([]byte(data), &chunk); err != nil {
			t.Fatalf("chunk %q: %v", data, err)
		}
		if chunk.Object != "chat.completion.chunk" {
			t.Errorf("object = %q", chunk.Object)
		}
		d := chunk.Choices[0].Delta
		res.Text += d.Content
		for _, c := range d.ToolCalls {
			if c.Index != len(res.Calls) {
				t.Errorf("tool call index %d, want %d", c.Index, len(res.Calls))
			}
			res.Calls = append(res.Calls, c.ToolCall)
		}
		if f := chunk.Choices[0].FinishReason; f != nil {
			res.Finish = *f
		}
		if chunk.Usage["total_tokens"] > 0 {
			res.Usage = true
		}
	}
	return res
}

const (
	agentBody = `{"model":"fake-model","stream":%t,"messages":[{"role":"system","content":"sys"},{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"memory_recall","parameters":{}}}]}`
	titleBody = `{"model":"fake-model","stream":%t,"messages":[{"role":"system","content":"You are a title generator. You output ONLY a thread title."},{"role":"user","content":"hi"}]}`
)

func TestReplies(t *testing.T) {
	recall := NewToolCall("memory_recall", map[string]any{"query": "部署"})
	tests := []struct {
		name  string
		reply Reply
		want  result
	}{
		{"text", Text("你好, world"), result{Status: 200, Text: "你好, world", Finish: "stop", Usage: true}},
		{"empty", Reply{}, result{Status: 200, Finish: "stop", Usage: true}},
		{"tool call", Calls(recall), result{Status: 200, Finish: "tool_calls", Usage: true, Calls: []ToolCall{
			{ID: "call_1", Type: "function", Function: FunctionCall{Name: "memory_recall", Arguments: `{"query":"部署"}`}},
		}}},
		{"two calls", Calls(NewToolCall("a", nil), NewToolCall("b", map[string]int{"n": 1})), result{Status: 200, Finish: "tool_calls", Usage: true, Calls: []ToolCall{
			{ID: "call_1", Type: "function", Function: FunctionCall{Name: "a", Arguments: `{}`}},
			{ID: "call_2", Type: "function", Function: FunctionCall{Name: "b", Arguments: `{"n":1}`}},
		}}},
		{"500", Error500("boom"), result{Status: 500, Text: "boom"}},
	}
	for _, stream := range []bool{true, false} {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s/stream=%t", tt.name, stream), func(t *testing.T) {
				s := New(func(Request) Reply { return tt.reply })
				defer s.Close()
				got := post(t, s, fmt.Sprintf(agentBody, stream))
				want := tt.want
				want.Done = stream && want.Status == 200
				if !reflect.DeepEqual(got, want) {
					t.Errorf("got  %+v\nwant %+v", got, want)
				}
			})
		}
	}
}

func TestModels(t *testing.T) {
	s := New(nil)
	defer s.Close()
	resp, err := http.Get(s.URL + "/models")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m struct{ Data []struct{ ID string } }
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	if len(m.Data) != 1 || m.Data[0].ID != ModelID {
		t.Errorf("models = %+v", m)
	}
}

func TestBadBody(t *testing.T) {
	s := New(nil)
	defer s.Close()
	if got := post(t, s, "{"); got.Status != http.StatusBadRequest {
		t.Errorf("status = %d", got.Status)
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("recorded %d requests", n)
	}
}

func TestScript(t *testing.T) {
	s := New(Script(Call("memory_recall", map[string]string{"query": "x"}), Text("done")))
	defer s.Close()
	steps := []struct {
		body string
		want string // text, or tool name
	}{
		{titleBody, TitleReply},
		{agentBody, "memory_recall"},
		{titleBody, TitleReply},
		{agentBody, "done"},
		{agentBody, "ok"},
	}
	for i, st := range steps {
		got := post(t, s, fmt.Sprintf(st.body, true))
		text := got.Text
		if len(got.Calls) > 0 {
			text = got.Calls[0].Function.Name
		}
		if text != st.want {
			t.Errorf("step %d: got %q, want %q", i, text, st.want)
		}
	}
}

func TestToolThenText(t *testing.T) {
	s := New(ToolThenText(NewToolCall("memory_inspect", nil), "done"))
	defer s.Close()
	afterTool := `{"model":"m","stream":true,"tools":[{"type":"function","function":{"name":"memory_inspect"}}],"messages":[
		{"role":"user","content":"hi"},
		{"role":"assistant","content":"","tool_calls":[{"id":"call_1","type":"function","function":{"name":"memory_inspect","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"call_1","content":"3 memories"}]}`
	for i, st := range []struct{ body, want string }{
		{fmt.Sprintf(titleBody, true), TitleReply},
		{fmt.Sprintf(agentBody, true), "memory_inspect"},
		{afterTool, "done"},
		{fmt.Sprintf(agentBody, true), "memory_inspect"},
	} {
		got := post(t, s, st.body)
		text := got.Text
		if len(got.Calls) > 0 {
			text = got.Calls[0].Function.Name
		}
		if text != st.want {
			t.Errorf("step %d: got %q, want %q", i, text, st.want)
		}
	}
	reqs := s.Requests()
	if r := reqs[2]; !r.AfterToolResult() || r.LastToolResult() != "3 memories" {
		t.Errorf("tool result: after=%t %q", r.AfterToolResult(), r.LastToolResult())
	}
}

func TestAccessors(t *testing.T) {
	s := New(nil)
	defer s.Close()
	body := `{"model":"fake-model","stream":false,
		"tools":[{"type":"function","function":{"name":"bash"}},{"type":"function","function":{"name":"memory_recall"}}],
		"messages":[
		{"role":"system","content":"one"},
		{"role":"system","content":[{"type":"text","text":"two"},{"type":"text","text":"three"}]},
		{"role":"user","content":"first"},
		{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"c1","content":"result one"},
		{"role":"tool","tool_call_id":"c2","content":[{"type":"text","text":"result two"}]},
		{"role":"user","content":[{"type":"text","text":"部署前要做什么?"},{"type":"image_url","image_url":{"url":"x"}},{"type":"text","text":"memory body"}]}]}`
	post(t, s, body)
	reqs := s.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	checks := []struct {
		name      string
		got, want any
	}{
		{"System", r.System(), []string{"one", "two\nthree"}},
		{"LastUserText", r.LastUserText(), "部署前要做什么?\nmemory body"},
		{"ToolNames", r.ToolNames(), []string{"bash", "memory_recall"}},
		{"HasTool", r.HasTool("memory_recall"), true},
		{"ToolResults", r.ToolResults(), []string{"result one", "result two"}},
		{"IsAgent", r.IsAgent(), true},
		{"IsTitle", r.IsTitle(), false},
		{"AfterToolResult", r.AfterToolResult(), false},
		{"Raw", string(r.Raw), body},
		{"Model", r.Body.Model, "fake-model"},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %#v, want %#v", c.name, c.got, c.want)
		}
	}
}

func TestConcurrentRecording(t *testing.T) {
	s := New(nil)
	defer s.Close()
	const n = 40
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := fmt.Sprintf(`{"model":"m","stream":%t,"messages":[{"role":"user","content":"%d"}]}`, i%2 == 0, i)
			resp, err := http.Post(s.URL+"/chat/completions", "application/json", strings.NewReader(body))
			if err != nil {
				t.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			_ = s.Requests() // read while others write
		}()
	}
	wg.Wait()
	reqs := s.Requests()
	seen := map[string]bool{}
	for i, r := range reqs {
		if r.Seq != i {
			t.Errorf("request %d has Seq %d", i, r.Seq)
		}
		seen[r.LastUserText()] = true
	}
	if len(reqs) != n || len(seen) != n {
		t.Errorf("recorded %d requests, %d distinct", len(reqs), len(seen))
	}
	s.Reset()
	if len(s.Requests()) != 0 {
		t.Error("Reset kept requests")
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name              string
		body              string
		title, agent, out bool
	}{
		{"title", fmt.Sprintf(titleBody, true), true, false, false},
		{"agent", fmt.Sprintf(agentBody, true), false, true, false},
		{"tool-less agent", `{"model":"m","messages":[{"role":"system","content":"extract memories"},{"role":"user","content":"x"}]}`, false, false, false},
		{"after tool", `{"model":"m","tools":[{"type":"function","function":{"name":"t"}}],"messages":[{"role":"user","content":"x"},{"role":"tool","tool_call_id":"c","content":"r"}]}`, false, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(nil)
			defer s.Close()
			post(t, s, tt.body)
			r := s.Requests()[0]
			if r.IsTitle() != tt.title || r.IsAgent() != tt.agent || r.AfterToolResult() != tt.out {
				t.Errorf("IsTitle=%t IsAgent=%t AfterToolResult=%t", r.IsTitle(), r.IsAgent(), r.AfterToolResult())
			}
		})
	}
}
