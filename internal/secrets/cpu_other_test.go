//go:build !unix

package secrets

import "time"

// processCPU is not measured here.
func processCPU() time.Duration { return 0 }
