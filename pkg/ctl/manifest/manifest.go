// Package manifest reads the objects handed to `ctl apply|create|delete|get
// -f`: files, directories and standard input holding YAML or JSON, one or
// several documents each, the way kubectl's resource builder reads them.
//
//   - A directory contributes its .json, .yaml and .yml files, in name
//     order, without descending into subdirectories (kubectl without -R).
//   - "-" is standard input; its objects come from the source "STDIN".
//   - A YAML file is split into documents at lines that start with "---"
//     (followed by nothing but spaces or a comment). Documents that hold
//     nothing, or only comments, are skipped.
//   - A file that starts with '{' is a stream of JSON objects.
//   - A document of kind List (or any kind ending in "List" with items) is
//     flattened into its items.
//
// Errors name the file, in kubectl's words: `error parsing bad.yaml: error
// converting YAML to JSON: yaml: line 7: mapping values are not allowed in
// this context`. Like kubectl, the line is counted from the start of the
// document that failed, and the documents before the error are still
// returned, so `apply` applies them before it reports the error.
package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"kplane/pkg/yamljson"
)

// StdinSource is the source name of objects read from "-".
const StdinSource = "STDIN"

// FileExtensions are the extensions a directory's files must have to be read.
var FileExtensions = []string{".json", ".yaml", ".yml"}

// Item is one object read, or one error met while reading. Objects keep
// their numbers as json.Number, so they are sent back exactly as written.
type Item struct {
	// Source is the file the object came from, as messages name it.
	Source string
	// Object is the decoded document; nil when Err is set.
	Object map[string]any
	// Err says what could not be read.
	Err error
}

// Read reads every filename ("-" for stdin) in order and returns the
// objects and errors met, in the order met. A directory gives its manifest
// files, and with recursive those of its subdirectories too (kubectl's
// -R). A path that does not exist, or a directory without a single
// manifest file, is an error of its own.
func Read(filenames []string, recursive bool, stdin io.Reader) []Item {
	var items []Item
	for _, name := range filenames {
		if name == "-" {
			data, err := io.ReadAll(stdin)
			if err != nil {
				items = append(items, Item{Source: StdinSource, Err: fmt.Errorf("read standard input: %w", err)})
				continue
			}
			items = append(items, Parse(StdinSource, data)...)
			continue
		}
		files, err := expand(name, recursive)
		if err != nil {
			items = append(items, Item{Source: name, Err: err})
			continue
		}
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				items = append(items, Item{Source: file, Err: fmt.Errorf("error reading %s: %w", file, err)})
				continue
			}
			items = append(items, Parse(file, data)...)
		}
	}
	return items
}

// expand turns a path into the files to read: itself, or a directory's
// manifest files in name order, walking into subdirectories only when
// recursive. Subdirectories come in name order among the files, as
// filepath.Walk visits them.
func expand(name string, recursive bool) ([]string, error) {
	info, err := os.Stat(name)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("the path %q does not exist", name)
	}
	if err != nil {
		return nil, fmt.Errorf("the path %q cannot be read: %w", name, err)
	}
	if !info.IsDir() {
		return []string{name}, nil
	}
	var files []string
	err = filepath.WalkDir(name, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != name && !recursive {
				return filepath.SkipDir
			}
			return nil
		}
		if hasManifestExtension(path) {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("error reading %s: %w", name, err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("error reading [%s]: recognized file extensions are [%s]", name, strings.Join(FileExtensions, " "))
	}
	return files, nil
}

func hasManifestExtension(name string) bool {
	ext := filepath.Ext(name)
	for _, want := range FileExtensions {
		if ext == want {
			return true
		}
	}
	return false
}

// Parse decodes every document of one source. It stops at the first
// document it cannot parse, returning the objects before it and the error.
func Parse(source string, data []byte) []Item {
	var items []Item
	add := func(obj map[string]any) {
		for _, o := range flatten(obj) {
			items = append(items, Item{Source: source, Object: o})
		}
	}
	fail := func(err error) []Item {
		return append(items, Item{Source: source, Err: fmt.Errorf("error parsing %s: %w", source, err)})
	}

	if trimmed := bytes.TrimLeft(data, " \t\r\n"); len(trimmed) > 0 && trimmed[0] == '{' {
		// A JSON stream: one or more objects, one after the other.
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		for {
			var obj map[string]any
			err := dec.Decode(&obj)
			if errors.Is(err, io.EOF) {
				return items
			}
			if err != nil {
				return fail(jsonError(err))
			}
			if obj != nil {
				add(obj)
			}
		}
	}

	docs, splitErr := splitYAML(data)
	for _, doc := range docs {
		if isBlank(doc) {
			continue
		}
		converted, err := yamljson.ToJSON(doc)
		if errors.Is(err, yamljson.ErrEmpty) {
			continue
		}
		if err != nil {
			return fail(err)
		}
		dec := json.NewDecoder(bytes.NewReader(converted))
		dec.UseNumber()
		var value any
		if err := dec.Decode(&value); err != nil {
			return fail(fmt.Errorf("error converting YAML to JSON: %w", jsonError(err)))
		}
		switch v := value.(type) {
		case nil:
			// A document of comments only.
		case map[string]any:
			add(v)
		default:
			return fail(fmt.Errorf("error unmarshaling JSON: while decoding JSON: json: cannot unmarshal %s into Go value of type map[string]interface {}", jsonType(v)))
		}
	}
	if splitErr != nil {
		// The documents before the bad separator line were read; it ends
		// the stream, as in kubectl.
		return fail(splitErr)
	}
	return items
}

// jsonError words a JSON syntax error as kubectl does, with its byte offset.
func jsonError(err error) error {
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		return fmt.Errorf("json: offset %d: %s", syntax.Offset, syntax.Error())
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("unexpected EOF")
	}
	return err
}

func jsonType(v any) string {
	switch v.(type) {
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "bool"
	default:
		return "number"
	}
}

// splitYAML cuts a YAML stream into documents at separator lines: lines
// starting with "---" followed only by spaces or a comment, the rule of
// kubectl's YAML reader. A line starting with "---" followed by anything
// else is an error there, not a document (kubectl says "invalid Yaml
// document separator"), and so it is here: splitYAML returns the documents
// ended by a separator before that line and the error; the document the
// line is in is dropped, as kubectl's reader drops it.
//
// Every other byte stays as it was, line endings included, so the documents
// and the separator lines joined again are the input. (kubectl's reader
// turns "\r\n" into "\n" as it reads lines; the YAML parser treats both
// alike, so the objects are the same either way.) Line numbers in errors
// therefore count from the start of each document, as kubectl's do.
func splitYAML(data []byte) ([][]byte, error) {
	var docs [][]byte
	start := 0 // where the current document begins
	for offset := 0; offset < len(data); {
		end := len(data)
		if i := bytes.IndexByte(data[offset:], '\n'); i >= 0 {
			end = offset + i + 1
		}
		separator, err := isSeparator(data[offset:end])
		if err != nil {
			return docs, err
		}
		if separator {
			docs = append(docs, data[start:offset:offset])
			start = end
		}
		offset = end
	}
	return append(docs, data[start:len(data):len(data)]), nil
}

// isSeparator reports whether line separates two documents: "---" followed
// only by spaces or a comment. Any other text after "---" is kubectl's
// "invalid Yaml document separator" error.
func isSeparator(line []byte) (bool, error) {
	if !bytes.HasPrefix(line, []byte("---")) {
		return false, nil
	}
	rest := strings.TrimSpace(string(line[3:]))
	if rest != "" && !strings.HasPrefix(rest, "#") {
		return false, fmt.Errorf("invalid Yaml document separator: %s", rest)
	}
	return true, nil
}

// isBlank reports a document of nothing but white space.
func isBlank(doc []byte) bool { return len(bytes.TrimSpace(doc)) == 0 }

// flatten returns the items of a List, or the object itself.
func flatten(obj map[string]any) []map[string]any {
	kind, _ := obj["kind"].(string)
	items, hasItems := obj["items"].([]any)
	if !strings.HasSuffix(kind, "List") || !hasItems {
		return []map[string]any{obj}
	}
	var out []map[string]any
	for _, item := range items {
		if m, ok := item.(map[string]any); ok {
			out = append(out, flatten(m)...)
		}
	}
	return out
}
