package printers

import (
	"encoding/base64"
	"fmt"
	"io"
	"text/template"
)

// GoTemplate is the template of -o go-template=….
type GoTemplate struct {
	text     string
	template *template.Template
}

// ParseGoTemplate parses the template of -o go-template=…, with kubectl's
// two extra functions: exists (does this chain of keys lead somewhere)
// and base64decode (for a Secret's data).
func ParseGoTemplate(text string) (*GoTemplate, error) {
	t, err := template.New("output").Funcs(template.FuncMap{
		"exists":       exists,
		"base64decode": base64decode,
	}).Parse(text)
	if err != nil {
		return nil, fmt.Errorf("error parsing template %s, %w", text, err)
	}
	return &GoTemplate{text: text, template: t}, nil
}

// Execute runs the template on a decoded object. A missing key prints
// "<no value>", Go's default, as kubectl's does.
func (g *GoTemplate) Execute(w io.Writer, doc any) error {
	if err := g.template.Execute(w, doc); err != nil {
		return fmt.Errorf("error executing template %q: %w", g.text, err)
	}
	return nil
}

// exists reports whether following keys (map keys or list indexes) from
// value reaches something.
func exists(value any, keys ...any) bool {
	for _, key := range keys {
		switch v := value.(type) {
		case map[string]any:
			k, ok := key.(string)
			if !ok {
				return false
			}
			if value, ok = v[k]; !ok {
				return false
			}
		case []any:
			i, ok := key.(int)
			if !ok || i < 0 || i >= len(v) {
				return false
			}
			value = v[i]
		default:
			return false
		}
	}
	return true
}

// base64decode decodes standard base64, as a Secret's data is encoded.
func base64decode(s string) (string, error) {
	data, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return "", fmt.Errorf("base64 decode failed: %w", err)
	}
	return string(data), nil
}
