package textseg_test

import (
	"fmt"

	"github.com/ocmem/ocmem/internal/textseg"
)

func ExampleTokenize() {
	for _, tok := range textseg.Tokenize("部署脚本用 pnpm-lock.yaml") {
		fmt.Println(tok.Text, tok.Type, tok.Start, tok.End)
	}
	// Output:
	// 部署 cjk 0 6
	// 署脚 cjk 3 9
	// 脚本 cjk 6 12
	// 本用 cjk 9 15
	// pnpm-lock.yaml ident 16 30
	// pnpm part 16 20
	// lock part 21 25
	// yaml part 26 30
}

func ExampleTerms() {
	fmt.Println(textseg.Terms("Deploying the HTTPServer"))
	// Output:
	// [deploy httpserver http server]
}
