package validation

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSeedManifestsAreValid decodes every manifest of the study notes
// kplane grew from (the "seeds" of the README's walkthrough), kept verbatim
// in testdata/seeds, and checks that creating it, and updating it to
// itself, are accepted.
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
		docs = append(docs, strings.Split(string(data), "\n---\n")...)
	}
	if len(testdata) == 0 {
		t.Fatal("no testdata/seeds/*.yaml")
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
