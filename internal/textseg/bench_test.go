package textseg

import "testing"

// benchMixed is a realistic memory body: Chinese prose around English words,
// identifiers and paths, as a bilingual team writes it (about 600 bytes).
const benchMixed = `部署脚本用 pnpm 而不是 npm，因为 lockfile 不兼容：CI 里 npm ci 会忽略 pnpm-lock.yaml，
安装出来的依赖版本和本地不一样。根因是 workspace 协议（workspace:*）只有 pnpm 认识。
修复：在 .github/workflows/deploy.yml 里加 corepack enable，并把 packageManager 字段写进
package.json。GOPROXY 设置为 https://goproxy.cn,direct 后 go mod download 才稳定。
数据库连接用 utf8mb4，否则 emoji 会写入失败。HTTPServer 的 ReadTimeout 设为 30s。
注意：Node 20.11.1 以上才支持 --experimental-strip-types，老版本会直接报错。`

// benchEnglish is an English-only memory body of the same kind.
const benchEnglish = `The deploy script uses pnpm instead of npm because the lockfile formats are not
compatible: npm ci in CI ignores pnpm-lock.yaml, so the installed dependency versions differ
from what developers run locally. The root cause is the workspace protocol, which only pnpm
understands. Fix: enable corepack in the deploy workflow and record packageManager in
package.json. Remember to set GOPROXY before running go mod download in restricted networks.
The database connection must use utf8mb4, otherwise inserting emoji fails; and the HTTPServer
ReadTimeout is 30s.`

func BenchmarkTokenize(b *testing.B) {
	for _, bc := range []struct{ name, in string }{
		{"mixed", benchMixed},
		{"english", benchEnglish},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.in)))
			b.ReportAllocs()
			for b.Loop() {
				Tokenize(bc.in)
			}
		})
	}
}

// BenchmarkAppendTokens is the indexing loop: one token slice reused across
// documents.
func BenchmarkAppendTokens(b *testing.B) {
	b.SetBytes(int64(len(benchMixed)))
	b.ReportAllocs()
	var toks []Token
	for b.Loop() {
		toks = AppendTokens(toks[:0], benchMixed)
	}
}
