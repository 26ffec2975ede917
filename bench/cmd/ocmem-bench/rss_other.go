//go:build !unix

package main

import "os"

// maxRSS is not measured here; the report shows 0.
func maxRSS(*os.ProcessState) int64 { return 0 }
