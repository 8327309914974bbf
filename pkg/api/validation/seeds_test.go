package validation

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// seedsDir is where the project's source notes live: /work/shared/seeds,
// beside the repository. The YAML they contain must all be accepted.
const seedsDir = "../../../../shared/seeds"

var apiVersionLine = regexp.MustCompile(`^apiVersion:`)

// seedDocuments extracts every Kubernetes YAML document from the fenced
// code blocks of a markdown file (a block counts if a line starts with
// "apiVersion:"; "---" separates documents).
func seedDocuments(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("open seed: %v", err)
	}
	defer f.Close()
	var docs, block []string
	inBlock, isYAML := false, false
	flush := func() {
		if isYAML {
			for _, doc := range strings.Split(strings.Join(block, "\n"), "\n---") {
				if apiVersionLine.MatchString(strings.TrimSpace(doc)) || strings.Contains(doc, "\napiVersion:") {
					docs = append(docs, strings.TrimPrefix(doc, "-\n"))
				}
			}
		}
		block, isYAML = nil, false
	}
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		line := scanner.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			if inBlock {
				flush()
			}
			inBlock = !inBlock
			continue
		}
		if inBlock {
			block = append(block, line)
			isYAML = isYAML || apiVersionLine.MatchString(line)
		}
	}
	if err := scanner.Err(); err != nil {
		t.Fatalf("read seed: %v", err)
	}
	return docs
}

// TestSeedManifestsAreValid decodes every manifest of the seeds (and the
// copies kept in testdata, which do not depend on the seeds being present)
// and checks that creating it, and updating it to itself, are accepted.
func TestSeedManifestsAreValid(t *testing.T) {
	var docs []string
	testdata, err := filepath.Glob("testdata/seeds/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range testdata {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range strings.Split(string(data), "\n---\n") {
			docs = append(docs, doc)
		}
	}
	if len(testdata) == 0 {
		t.Fatal("no testdata/seeds/*.yaml")
	}
	copies := len(docs)
	seeds, _ := filepath.Glob(filepath.Join(seedsDir, "*.txt"))
	for _, path := range seeds {
		docs = append(docs, seedDocuments(t, path)...)
	}
	switch {
	case len(seeds) == 0:
		t.Logf("seeds not found at %s; checking the testdata copies only", seedsDir)
	case len(docs) != 2*copies:
		t.Errorf("the seeds hold %d manifests, testdata/seeds %d: refresh the copies", len(docs)-copies, copies)
	}
	for _, doc := range docs {
		obj, err := decodeDocument(doc)
		if err != nil {
			t.Errorf("%v\n%s", err, doc)
			continue
		}
		name := obj.GetTypeMeta().Kind + "/" + obj.GetObjectMeta().Name
		t.Run(name, func(t *testing.T) {
			if errs := ValidateCreate(obj); len(errs) > 0 {
				t.Errorf("create rejected:\n%s", describe(errs))
			}
			old := asStored(obj)
			updated := asStored(obj)
			if errs := ValidateUpdate(updated, old); len(errs) > 0 {
				t.Errorf("no-op update rejected:\n%s", describe(errs))
			}
		})
	}
}
