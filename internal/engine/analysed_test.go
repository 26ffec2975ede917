package engine

import (
	"strings"
	"testing"

	"github.com/ocmem/ocmem/internal/memory"
	"github.com/ocmem/ocmem/internal/options"
)

// TestInjectAnalysesBothEndsOfAHugeMessage: a question before or after a
// 4 MB paste still calls up its memory.
func TestInjectAnalysesBothEndsOfAHugeMessage(t *testing.T) {
	rs := newRoots(t)
	e := rs.engine(options.Options{})
	mustRemember(t, e, RememberRequest{Category: "facts", Kind: memory.KindFact, Summary: "Kafka retention is per partition",
		LoadWhen: []string{"kafka retention"}, Body: "Segments are deleted per partition."})
	paste := strings.Repeat("2026-12-01 12:00:00 INFO worker heartbeat ok\n", 4<<20/45)
	for _, msg := range []string{"Why is kafka retention not applied?\n" + paste, paste + "Why is kafka retention not applied?"} {
		inj := mustInject(t, e, msg, InjectOptions{})
		if !strings.Contains(inj.Bodies, "Segments are deleted per partition") {
			t.Errorf("the memory was not given for a %d-byte message", len(msg))
		}
		if hits, err := e.Recall(msg, RecallOptions{}); err != nil || len(hits) == 0 {
			t.Errorf("recall with a %d-byte query: %v, %v", len(msg), hits, err)
		}
	}
}

// BenchmarkInjectHugeMessage injects for a 4 MB message of CJK text, the
// largest serve accepts (B/op is what one such message costs).
func BenchmarkInjectHugeMessage(b *testing.B) {
	d := b.TempDir()
	e := New(Config{GlobalDir: d + "/global", ProjectDir: d + "/project"})
	for i := range 20 {
		if _, err := e.Remember(RememberRequest{Category: "facts", Kind: memory.KindFact, Summary: "部署服务需要检查配置 " + strings.Repeat("x", i)}); err != nil {
			b.Fatal(err)
		}
	}
	var msg strings.Builder
	msg.WriteString("如何部署服务？\n")
	for r := rune(0x4e00); msg.Len() < 4<<20-100; r++ {
		if r > 0x9fff {
			r = 0x4e00
		}
		msg.WriteRune(r)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Inject(msg.String(), InjectOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRecallHugeQuery recalls with a 4 MB query of CJK text (a
// model's memory_recall can send one).
func BenchmarkRecallHugeQuery(b *testing.B) {
	d := b.TempDir()
	e := New(Config{GlobalDir: d + "/global", ProjectDir: d + "/project"})
	if _, err := e.Remember(RememberRequest{Category: "facts", Kind: memory.KindFact, Summary: "部署服务需要检查配置"}); err != nil {
		b.Fatal(err)
	}
	var q strings.Builder
	for r := rune(0x4e00); q.Len() < 4<<20-100; r++ {
		if r > 0x9fff {
			r = 0x4e00
		}
		q.WriteRune(r)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Recall(q.String(), RecallOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
