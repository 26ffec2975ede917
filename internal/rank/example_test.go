package rank_test

import (
	"fmt"

	"github.com/ocmem/ocmem/internal/index"
	"github.com/ocmem/ocmem/internal/rank"
)

// Memories are indexed by field, described to the ranker (Meta) and ranked
// against a message; each hit carries the reasons for its score.
func ExampleRank() {
	doc := func(summary, triggers, body string) index.Doc {
		var d index.Doc
		d.Fields[index.Summary], d.Fields[index.LoadWhen], d.Fields[index.Body] = summary, triggers, body
		return d
	}
	ix := index.Build([]index.Doc{
		doc("部署前先执行数据库迁移", "部署 ; deploy", "make migrate before the new version starts"),
		doc("Use pnpm, never npm", "pnpm ; npm", "the lockfile is pnpm-lock.yaml"),
	})
	c := rank.NewCorpus(ix, []rank.Meta{{ID: "pitfalls/deploy-migrate"}, {ID: "preferences/pnpm"}})
	res := rank.Rank(c, "部署前要做什么?", rank.Params{Mode: rank.Inject, HalfLifeDays: -1})
	for _, h := range res.Hits {
		fmt.Println(c.Meta(h.Doc).ID, len(h.Reasons.Terms) > 0)
	}
	// Output:
	// pitfalls/deploy-migrate true
}
