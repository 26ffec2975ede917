// Package benchgen generates realistic bilingual memory stores for
// benchmarks: deterministic (same seed, same bytes), any size, both roots,
// with a few planted needles whose answers are known.
//
//	needles, err := benchgen.Write(dir, benchgen.Config{Memories: 10000})
//	// dir/global and dir/project now hold the memories
package benchgen

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/ocmem/ocmem/internal/memory"
)

// Config sizes a corpus. The zero value is 1,000 memories, seed 1.
type Config struct {
	Memories int    // total, over both roots
	Seed     uint64 // 0: 1
	// GlobalShare is the share of memories in the global root; 0: 0.3.
	GlobalShare float64
	// RuleShare is the share of kind: rule memories, the others spread
	// evenly over the other kinds; 0: every kind alike (one in five).
	RuleShare float64
}

// Needle is a planted memory and a query it must answer first.
type Needle struct {
	Query string `json:"query"`
	Scope string `json:"scope"`
	ID    string `json:"id"`
}

var categories = []struct {
	name string
	kind memory.Kind
}{
	{"rules", memory.KindRule},
	{"preferences", memory.KindPreference},
	{"decisions", memory.KindDecision},
	{"pitfalls", memory.KindPitfall},
	{"facts", memory.KindFact},
}

// Vocabulary of a backend/frontend engineering team, Chinese and English.
var (
	zhTopics = strings.Fields(`部署 配置 缓存 数据库 接口 日志 监控 权限 订单 支付 库存 优惠券 迁移 索引 事务 死锁 超时
		重试 幂等 限流 熔断 队列 消息 回调 签名 证书 域名 镜像 容器 集群 节点 分片 备份 回滚 发布 灰度 测试 断言
		覆盖率 构建 流水线 依赖 版本 升级 兼容 性能 内存 泄漏 并发 连接池 定时任务 告警 报表 导出 上传 下载
		分页 排序 搜索 推荐 登录 注册 验证码 短信 邮件 通知 审计 加密 脱敏 时区 编码 格式 规范 评审 文档`)
	zhVerbs   = strings.Fields(`必须 不要 优先 统一 禁止 改用 保留 避免 检查 记录 拆分 合并 压缩 预热 隔离 降级`)
	zhFillers = strings.Fields(`之前线上出过一次问题 这是团队约定 原因是历史包袱 排查了很久才发现 改之前先在预发验证 详情见内部文档 和运维确认过 影响范围是所有服务`)
	enTopics  = strings.Fields(`redis mysql postgres kafka rabbitmq nginx docker kubernetes helm grpc graphql webhook oauth jwt
		cors csrf ttl latency timeout retry pagination migration rollback deployment staging production cache
		index transaction deadlock queue consumer producer schema vendor module lint coverage benchmark profiler
		goroutine channel mutex context middleware router handler serializer validator logger tracing metrics`)
	enVerbs   = strings.Fields(`always never prefer avoid use keep split check pin bump retry cache log validate document`)
	enFillers = []string{"We learned this the hard way in production.", "This is a team convention.", "See the runbook for details.",
		"It broke the release pipeline once.", "Measured on the staging cluster.", "Agreed in the architecture review."}
	idents = strings.Fields(`orderService user_id pnpm-lock.yaml config.yaml go.mod Dockerfile .env.example max_conns
		readTimeout HTTPServer retryPolicy idempotency_key X-Request-ID make-migrate k8s.io/client-go utf8mb4 p99`)
)

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// Long-tail vocabulary: real stores name services, tables, flags and
// people that few memories share. Terms are drawn from it with a Zipf
// distribution, so a few are common and most are rare, as in text.
const tailSize = 20000

var (
	zhChars   = []rune("服务订单用户商品库存支付优惠积分会员物流仓储营销风控财务结算对账发票退款售后客服评价搜索推荐广告内容审核消息推送网关鉴权配置调度任务报表监控告警日志链路缓存存储索引分片副本主从读写批量实时离线数仓埋点画像标签规则策略模板版本渠道门店区域城市")
	syllables = strings.Fields("ka lo mi ra ten vo sar bel quin dor pha lex mor tis gan rup sel vim zor bra cto fen")
)

type vocab struct {
	zh, en []string
	zipf   *rand.Zipf
}

func newVocab(r *rand.Rand) *vocab {
	v := &vocab{zipf: rand.NewZipf(r, 1.1, 2, tailSize-1)}
	for range tailSize {
		v.zh = append(v.zh, string([]rune{zhChars[r.IntN(len(zhChars))], zhChars[r.IntN(len(zhChars))]}))
		w := ""
		for range 2 + r.IntN(2) {
			w += pick(r, syllables)
		}
		v.en = append(v.en, w)
	}
	return v
}

func (v *vocab) zhTerm() string { return v.zh[v.zipf.Uint64()] }
func (v *vocab) enTerm() string { return v.en[v.zipf.Uint64()] }

// Write generates the corpus under dir/global and dir/project and returns the
// planted needles.
func Write(dir string, c Config) ([]Needle, error) {
	if c.Memories <= 0 {
		c.Memories = 1000
	}
	if c.Seed == 0 {
		c.Seed = 1
	}
	if c.GlobalShare <= 0 {
		c.GlobalShare = 0.3
	}
	r := rand.New(rand.NewPCG(c.Seed, c.Seed^0x9e3779b97f4a7c15))
	v := newVocab(r)
	const base = int64(1_760_000_000_000) // Unix ms, late 2025
	const span = int64(2 * 365 * 24 * 3600 * 1000)
	type pending struct {
		scope string
		m     *memory.Memory
	}
	var all []pending
	for i := range c.Memories {
		scope := "project"
		if r.Float64() < c.GlobalShare {
			scope = "global"
		}
		cat := categories[r.IntN(len(categories))]
		if c.RuleShare > 0 { // categories[0] is rules
			cat = categories[1+r.IntN(len(categories)-1)]
			if r.Float64() < c.RuleShare {
				cat = categories[0]
			}
		}
		zh := r.IntN(3) != 0 // two in three memories are in Chinese
		m := &memory.Memory{Kind: cat.kind}
		topic := pick(r, enTopics)
		ztopic := pick(r, zhTopics)
		if zh {
			m.Summary = fmt.Sprintf("%s%s的%s时%s%s,%s用 %s。", v.zhTerm(), ztopic, pick(r, zhTopics), pick(r, zhVerbs), v.zhTerm(), pick(r, zhVerbs), topic)
			m.Highlight = fmt.Sprintf("%s 的 %s 要看 %s", pick(r, idents), pick(r, zhTopics), topic)
		} else {
			m.Summary = fmt.Sprintf("%s %s %s for %s when %s %s.", strings.ToUpper(pick(r, enVerbs)[:1])+pick(r, enVerbs)[1:], topic, v.enTerm(), pick(r, enTopics), v.enTerm(), pick(r, enVerbs))
			if r.IntN(2) == 0 {
				m.Highlight = fmt.Sprintf("set %s in %s", pick(r, idents), pick(r, idents))
			}
		}
		m.LoadWhen = []string{topic, ztopic, v.enTerm()}
		if r.IntN(2) == 0 {
			m.LoadWhen = append(m.LoadWhen, pick(r, idents))
		}
		var body strings.Builder
		for range 1 + r.IntN(6) {
			if zh {
				fmt.Fprintf(&body, "%s%s的时候%s%s和%s,%s。", v.zhTerm(), pick(r, zhTopics), pick(r, zhVerbs), v.zhTerm(), v.zhTerm(), pick(r, zhFillers))
			} else {
				fmt.Fprintf(&body, "When the %s %s %s, %s the %s %s. %s ", v.enTerm(), pick(r, enTopics), pick(r, enVerbs), pick(r, enVerbs), v.enTerm(), pick(r, enTopics), pick(r, enFillers))
			}
		}
		m.Body = strings.TrimSpace(body.String()) + "\n"
		m.Created = base + r.Int64N(span)
		m.Updated = m.Created + r.Int64N(30*24*3600*1000)
		m.Pinned = r.IntN(50) == 0
		m.ID = fmt.Sprintf("%s/m%06d", cat.name, i)
		all = append(all, pending{scope, m})
	}
	// Supersede chains: one memory in a hundred replaces an earlier one of
	// the same root and category.
	for i := 100; i < len(all); i += 100 {
		old, cur := all[i-50], all[i]
		if old.scope == cur.scope && old.m.Category() == cur.m.Category() && old.m.SupersededBy == "" {
			cur.m.Supersedes = old.m.ID
			old.m.SupersededBy = cur.m.ID
		}
	}
	needles := []struct {
		scope, cat, summary, query string
		triggers                   []string
	}{
		{"project", "pitfalls", "zebrafish-ttl-7731 在回放队列里会被截断,需要手动补偿。", "zebrafish-ttl-7731 被截断怎么办", []string{"zebrafish-ttl-7731"}},
		{"project", "decisions", "订单归档改用冷热分离的鲸鱼存储方案。", "鲸鱼存储", []string{"鲸鱼存储", "cold archive"}},
		{"global", "preferences", "Quokka reviews require two approvers from the platform team.", "who approves quokka reviews", []string{"quokka"}},
		{"global", "facts", "The narwhalgate proxy rewrites Host headers for legacy tenants.", "narwhalgate host header", []string{"narwhalgate"}},
	}
	var out []Needle
	for i, n := range needles {
		m := &memory.Memory{
			ID: fmt.Sprintf("%s/needle-%d", n.cat, i), Kind: categoryKind(n.cat), Summary: n.summary,
			LoadWhen: n.triggers, Body: "Planted needle for benchmarks.\n",
			Created: base + span, Updated: base + span,
		}
		all = append(all, pending{n.scope, m})
		out = append(out, Needle{Query: n.query, Scope: n.scope, ID: m.ID})
	}
	for _, p := range all {
		path := filepath.Join(dir, p.scope, filepath.FromSlash(p.m.ID)+".md")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(path, p.m.Format(), 0o644); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func categoryKind(cat string) memory.Kind {
	for _, c := range categories {
		if c.name == cat {
			return c.kind
		}
	}
	return memory.KindFact
}
