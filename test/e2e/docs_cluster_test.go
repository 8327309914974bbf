package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"kplane/pkg/cluster"
)

// A page whose lesson needs a cluster started with other `ctl up` flags
// says so on a line of its own, anywhere in the page:
//
//	<!-- docs-cluster: --virtual-clock -->
//
// TestDocs then starts that page's cluster with those flags. Only the flags
// below are known; a walkthrough (which TestDocsInSequence runs on the one
// shared default cluster) may not carry the line.

// docsClusterRE matches the page-level cluster annotation.
var docsClusterRE = regexp.MustCompile(`(?m)^<!--\s*docs-cluster:\s*(.*?)\s*-->\s*$`)

// docsClusterFlags are the `ctl up` flags a page may ask for.
var docsClusterFlags = map[string]func(*cluster.Options){
	"--virtual-clock": func(o *cluster.Options) { o.VirtualClock = true },
}

// pageClusterFlags returns the flags of rel's docs-cluster line (none
// without one), failing on an unknown flag.
func pageClusterFlags(root, rel string) ([]string, error) {
	content, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		return nil, err
	}
	var flags []string
	for _, m := range docsClusterRE.FindAllStringSubmatch(string(content), -1) {
		for _, flag := range strings.Fields(m[1]) {
			if docsClusterFlags[flag] == nil {
				return nil, fmt.Errorf("%s: docs-cluster: unknown flag %q (known: --virtual-clock)", rel, flag)
			}
			flags = append(flags, flag)
		}
	}
	return flags, nil
}

// pageClusterOptions returns what framework.StartCluster must change for
// rel's cluster: nil for the default cluster.
func pageClusterOptions(root, rel string) (func(*cluster.Options), error) {
	flags, err := pageClusterFlags(root, rel)
	if err != nil || len(flags) == 0 {
		return nil, err
	}
	return func(o *cluster.Options) {
		for _, flag := range flags {
			docsClusterFlags[flag](o)
		}
	}, nil
}

func TestPageClusterFlags(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("plain.md", "# A page\n")
	write("virtual.md", "# A page\n\n<!-- docs-cluster: --virtual-clock -->\n\ntext\n")
	write("unknown.md", "<!-- docs-cluster: --nodes 5 -->\n")
	if flags, err := pageClusterFlags(dir, "plain.md"); err != nil || len(flags) != 0 {
		t.Errorf("plain page: %v, %v; want no flags", flags, err)
	}
	if flags, err := pageClusterFlags(dir, "virtual.md"); err != nil || strings.Join(flags, " ") != "--virtual-clock" {
		t.Errorf("virtual page: %v, %v; want --virtual-clock", flags, err)
	}
	if _, err := pageClusterFlags(dir, "unknown.md"); err == nil || !strings.Contains(err.Error(), `unknown flag "--nodes"`) {
		t.Errorf("unknown flag: %v", err)
	}
}
