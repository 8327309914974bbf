//go:build scale

package scale

import (
	"os"
	"testing"

	"kplane/test/framework"
)

// TestMain removes the binaries framework.BuildBinaries built for the run.
func TestMain(m *testing.M) {
	code := m.Run()
	framework.RemoveBinaries()
	os.Exit(code)
}
