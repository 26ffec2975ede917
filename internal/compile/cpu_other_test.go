//go:build !unix

package compile

import "time"

// processCPU is not measured here.
func processCPU() time.Duration { return 0 }
