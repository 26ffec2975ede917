package stale

import (
	"testing"

	"github.com/ocmem/ocmem/internal/e2e"
)

func TestMain(m *testing.M) { e2e.Main(m) }
