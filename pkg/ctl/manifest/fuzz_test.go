package manifest

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

var yamlSeeds = []string{
	"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n",
	"--- # first\na: 1\n---\n---   \nb: 2", "a: |\n  ---\n  not a separator\n", "----\n--- x\n---#c\n",
	"a: 1\r\n---\r\nb: 2\r\n", "\r", "---", "", "a: \"---\"\n", "{\"kind\":\"List\",\"items\":[{\"kind\":\"A\"}]}",
	"kind: List\nitems:\n- kind: A\n- 3\n- kind: BList\n  items: [{kind: C}]\n", "a: b: c\n---\nd: 1\n", "- 1\n",
	"# only a comment\n---\n\n", "{\"a\":1}{\"b\":2}", "{\"a\":1} [1]", "x\n---\xff\n",
	"kind: A\n--- {kind: B}\n", "kind: A\n---\nkind: B\n---x\nkind: C\n",
}

// FuzzSplitYAML checks the multi-document splitter's round trip: the
// documents joined back with the separator lines between them are the
// input, byte for byte; no document holds a separator line; and there is
// one document more than separators. An input with a line that starts with
// "---" but is no separator (kubectl's "invalid Yaml document separator")
// is an error naming that line's text, and the documents before it are
// those ended by a separator: joined back, a prefix of the input, and
// everything between them and the bad line holds no separator.
func FuzzSplitYAML(f *testing.F) {
	for _, seed := range yamlSeeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		docs, err := splitYAML(data)
		var separators [][]byte
		var bad error
		for _, line := range bytes.SplitAfter(data, []byte("\n")) {
			separator, lineErr := isSeparator(line)
			if lineErr != nil {
				bad = lineErr
				break
			}
			if separator {
				separators = append(separators, line)
			}
		}
		if (err == nil) != (bad == nil) || (err != nil && err.Error() != bad.Error()) {
			t.Fatalf("%q: error %v, want %v", data, err, bad)
		}
		want := len(separators) + 1
		if err != nil {
			if !strings.HasPrefix(err.Error(), "invalid Yaml document separator: ") {
				t.Fatalf("%q: error %q, want kubectl's invalid Yaml document separator", data, err)
			}
			want = len(separators)
		}
		if len(docs) != want {
			t.Fatalf("%q: %d documents for %d separators (error %v)", data, len(docs), len(separators), err)
		}
		var joined []byte
		for i, doc := range docs {
			for _, line := range bytes.SplitAfter(doc, []byte("\n")) {
				if separator, _ := isSeparator(line); separator {
					t.Fatalf("%q: document %d holds the separator %q", data, i, line)
				}
			}
			joined = append(joined, doc...)
			if i < len(separators) {
				joined = append(joined, separators[i]...)
			}
		}
		if err == nil && !bytes.Equal(joined, data) {
			t.Fatalf("%q: split into %q, which joins back to %q", data, docs, joined)
		}
		if err != nil && !bytes.HasPrefix(data, joined) {
			t.Fatalf("%q: split into %q before %v, which is not how the input starts", data, docs, err)
		}
	})
}

// FuzzParse checks what `ctl apply -f` relies on for any file content:
// every item is an object or an error, never both or neither; an error is
// the last item (parsing stops at the first bad document); every error
// names the source; and the documents of a stream, parsed one by one, give
// the same objects as the stream does (List items included).
func FuzzParse(f *testing.F) {
	for _, seed := range yamlSeeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		items := Parse("in.yaml", data)
		for i, item := range items {
			if (item.Object == nil) == (item.Err == nil) {
				t.Fatalf("%q: item %d has object %v and error %v", data, i, item.Object, item.Err)
			}
			if item.Source != "in.yaml" {
				t.Fatalf("%q: item %d from %q", data, i, item.Source)
			}
			if item.Err != nil {
				if i != len(items)-1 {
					t.Fatalf("%q: error %v at item %d of %d", data, item.Err, i, len(items))
				}
				if !strings.Contains(item.Err.Error(), "in.yaml") {
					t.Fatalf("%q: error %q does not name the file", data, item.Err)
				}
			}
		}
		if trimmed := bytes.TrimLeft(data, " \t\r\n"); len(trimmed) > 0 && trimmed[0] == '{' {
			return // a JSON stream is not split into YAML documents
		}
		var oneByOne []Item
		docs, splitErr := splitYAML(data)
		for _, doc := range docs {
			if trimmed := bytes.TrimLeft(doc, " \t\r\n"); len(trimmed) > 0 && trimmed[0] == '{' {
				return // alone, this document would be read as a JSON stream
			}
			part := Parse("in.yaml", doc)
			oneByOne = append(oneByOne, part...)
			if len(part) > 0 && part[len(part)-1].Err != nil {
				splitErr = nil // parsing stopped before the bad separator
				break
			}
		}
		if splitErr != nil {
			oneByOne = append(oneByOne, Item{Source: "in.yaml", Err: splitErr})
		}
		if len(oneByOne) != len(items) {
			t.Fatalf("%q: %d items from the stream, %d from its documents", data, len(items), len(oneByOne))
		}
		for i := range items {
			if (items[i].Err == nil) != (oneByOne[i].Err == nil) || describeItem(items[i]) != describeItem(oneByOne[i]) {
				t.Fatalf("%q: item %d is %s from the stream, %s from its document", data, i, describeItem(items[i]), describeItem(oneByOne[i]))
			}
		}
	})
}

// describeItem is an item's object as JSON (keys sorted, numbers as
// written) or, for an error, only that it is one: the messages are not what
// this compares.
func describeItem(item Item) string {
	if item.Err != nil {
		return "error"
	}
	b, err := json.Marshal(item.Object)
	if err != nil {
		return "unencodable: " + err.Error()
	}
	return string(b)
}
