package ctl

//go:generate go run ./internal/gendocs -api ../api -out explain_docs.go

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"kplane/pkg/api"
	"kplane/pkg/api/schema"
)

// explainOptions are the flags of `ctl explain`.
type explainOptions struct {
	f          *factory
	recursive  bool
	apiVersion string
	output     string
}

// newExplainCommand is `ctl explain`.
func newExplainCommand(f *factory) *cobra.Command {
	o := &explainOptions{f: f, output: "plaintext"}
	cmd := &cobra.Command{
		Use:   "explain TYPE[.FIELD...] [--recursive]",
		Short: "Get documentation for a resource",
		Long: `explain describes the fields of a kind, or of one field (spec.replicas,
spec.template.spec.containers), in the layout of kubectl explain: the
field's type and description, then its own fields.

kubectl explain reads the OpenAPI schemas the apiserver publishes; kplane's
apiserver publishes none, so ctl builds the description from kplane's own Go
types in pkg/api: field names from their json tags, types from the Go types
(<string>, <integer>, <[]Container>, <map[string]string>), -required- for
the fields without omitempty, and descriptions from the types' doc comments,
which ` + "`go generate ./pkg/ctl`" + ` copies into explain_docs.go (Go has no doc
comments at run time). Fields without a comment say <no description>.`,
		Example: `  ctl explain pods
  ctl explain deploy.spec.replicas
  ctl explain deployment.spec.template.spec.containers
  ctl explain deploy.spec --recursive`,
		ValidArgsFunction: completeResourceTypes(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), cmd.CommandPath(), args)
		},
	}
	flags := cmd.Flags()
	flags.BoolVar(&o.recursive, "recursive", false, "list the fields of the fields, all the way down, without descriptions")
	flags.StringVar(&o.apiVersion, "api-version", "", "the group/version of the kind, when several serve the name (e.g. apps/v1)")
	flags.StringVarP(&o.output, "output", "o", o.output, "the format: plaintext")
	return cmd
}

// run is `ctl explain`.
func (o *explainOptions) run(ctx context.Context, commandPath string, args []string) error {
	if len(args) == 0 {
		fmt.Fprintf(o.f.errOut(), "You must specify the type of resource to explain. Use \"ctl api-resources\" for a complete list of supported resources.\n\n")
		return usageError(commandPath, "Required resource not specified.")
	}
	if len(args) > 1 {
		return fmt.Errorf("We accept only this format: explain RESOURCE")
	}
	if o.output != "plaintext" {
		return fmt.Errorf("unsupported output format %q: only plaintext is supported", o.output)
	}
	m, err := o.f.Mapper(ctx)
	if err != nil {
		return err
	}
	typeName, fieldPath, _ := strings.Cut(args[0], ".")
	if o.apiVersion != "" {
		group, version, ok := strings.Cut(o.apiVersion, "/")
		if !ok {
			group, version = "", o.apiVersion
		}
		typeName = typeName + "." + version
		if group != "" {
			typeName += "." + group
		}
	}
	r, err := m.ResourceFor(typeName)
	if err != nil {
		return err
	}
	goType, ok := apiTypes[r.Group+"/"+r.Kind]
	if !ok {
		return fmt.Errorf("couldn't find resource for %q", r.GroupVersion()+", Kind="+r.Kind)
	}
	var path []string
	if fieldPath != "" {
		path = strings.Split(fieldPath, ".")
	}
	text, err := explain(r.Group, r.Version, r.Kind, goType, path, o.recursive)
	if err != nil {
		return err
	}
	_, err = fmt.Fprint(o.f.out(), text)
	return err
}

// explain renders kubectl explain's plaintext template
// (k8s.io/kubectl/pkg/explain/v2/templates/plaintext.tmpl) for a kind
// described by its Go type, walking path into its fields.
func explain(group, version, kind string, goType reflect.Type, path []string, recursive bool) (string, error) {
	var b strings.Builder
	if group != "" {
		fmt.Fprintf(&b, "GROUP:      %s\n", group)
	}
	fmt.Fprintf(&b, "KIND:       %s\n", kind)
	fmt.Fprintf(&b, "VERSION:    %s\n\n", version)

	typ := schema.Of(goType)
	description := joinDocs(typeDoc(typ))
	for i, name := range path {
		object := objectOf(typ)
		field := object.Field(name)
		if field == nil {
			return "", fmt.Errorf("field %q does not exist", name)
		}
		typ = field.Type
		if i == len(path)-1 {
			fmt.Fprintf(&b, "FIELD: %s <%s>\n\n", name, typeName(typ))
			description = joinDocs(fieldDoc(object, field), typeDoc(typ))
		}
	}

	if description == "" {
		description = "<empty>"
	}
	b.WriteString("DESCRIPTION:\n")
	b.WriteString(indentLines(wrapText(description, 76), 4))
	b.WriteString("\n")
	if fields := objectOf(typ); fields != nil && fields.Kind == schema.Object && len(fields.Fields) > 0 {
		b.WriteString("FIELDS:\n")
		writeFieldList(&b, fields, 1, recursive, map[reflect.Type]bool{fields.Go: true})
	}
	b.WriteString("\n")
	return b.String(), nil
}

// objectOf looks through lists and maps to the type whose fields a path
// continues into (spec.containers.name: the fields of a Container).
func objectOf(t *schema.Type) *schema.Type {
	for t != nil && (t.Kind == schema.List || t.Kind == schema.Map) {
		t = t.Elem
	}
	return t
}

// writeFieldList writes an object's fields sorted by name, each as
// "name\t<type>" (with " -required-") at its level's indentation, followed
// by its description or, with recursive, by its own fields one level
// deeper. onPath holds the types being expanded, so that a type containing
// itself stops instead of recursing forever (as the template's history).
func writeFieldList(b *strings.Builder, t *schema.Type, level int, recursive bool, onPath map[reflect.Type]bool) {
	fields := append([]*schema.Field(nil), t.Fields...)
	sort.Slice(fields, func(i, j int) bool { return fields[i].Name < fields[j].Name })
	indent := strings.Repeat(" ", 2*level)
	for _, field := range fields {
		fmt.Fprintf(b, "%s%s\t<%s>", indent, field.Name, typeName(field.Type))
		if !field.OmitEmpty {
			b.WriteString(" -required-")
		}
		b.WriteString("\n")
		if !recursive {
			doc := fieldDoc(t, field)
			if doc == "" {
				doc = "<no description>"
			}
			b.WriteString(indentLines(wrapText(doc, 78-2*level), 2*level+2))
			b.WriteString("\n\n")
			continue
		}
		inner := objectOf(field.Type)
		if inner == nil || inner.Kind != schema.Object || onPath[inner.Go] {
			continue
		}
		onPath[inner.Go] = true
		writeFieldList(b, inner, level+1, recursive, onPath)
		delete(onPath, inner.Go)
	}
}

// typeName is the type hint kubectl's template guesses from a schema:
// string, integer, number, boolean, a struct's name, []T, map[string]T,
// and Object for what has no better name.
func typeName(t *schema.Type) string {
	switch t.Kind {
	case schema.List:
		return "[]" + typeName(t.Elem)
	case schema.Map:
		return "map[string]" + typeName(t.Elem)
	case schema.Object:
		if t.Go.Name() == "" {
			return "Object"
		}
		return t.Go.Name()
	}
	// Leaves: the types with their own JSON form are named as upstream's
	// schemas name them.
	switch t.Go.Name() {
	case "Time", "MicroTime":
		return "string"
	case "Quantity", "IntOrString":
		return t.Go.Name()
	}
	switch t.Go.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice:
		return "string" // []byte, base64 in JSON
	}
	return "Object"
}

// typeDoc is the doc comment of a named struct type (looking through lists
// and maps), which kubectl shows after a field's own description.
func typeDoc(t *schema.Type) string {
	for t != nil && (t.Kind == schema.List || t.Kind == schema.Map) {
		t = t.Elem
	}
	if t == nil || t.Go.Kind() != reflect.Struct || t.Go.PkgPath() != apiPackagePath {
		return ""
	}
	return apiDocs[t.Go.Name()]
}

// apiPackagePath is where the documented types live.
var apiPackagePath = reflect.TypeFor[api.Pod]().PkgPath()

// fieldDoc is the doc comment of a field, looked up on the struct that
// declares it (an embedded struct's, for promoted fields such as
// TypeMeta's kind).
func fieldDoc(owner *schema.Type, field *schema.Field) string {
	declaring := owner.Go
	for _, i := range field.Index[:len(field.Index)-1] {
		declaring = declaring.Field(i).Type
		for declaring.Kind() == reflect.Pointer {
			declaring = declaring.Elem()
		}
	}
	return apiDocs[declaring.Name()+"."+field.GoName]
}

// joinDocs puts descriptions one after the other, each ending its line, as
// the template's "description" does with a field and its type.
func joinDocs(docs ...string) string {
	var b strings.Builder
	for _, d := range docs {
		if d != "" {
			b.WriteString(d + "\n")
		}
	}
	return b.String()
}

// indentLines is sprig's indent: every line, including an empty last one,
// starts with n spaces.
func indentLines(s string, n int) string {
	pad := strings.Repeat(" ", n)
	return pad + strings.ReplaceAll(s, "\n", "\n"+pad)
}

// wrapText is sprig's wrap (goutils.Wrap): it breaks lines longer than
// width at the last space before the limit, leaves words longer than width
// whole, and keeps the newlines already in s.
func wrapText(s string, width int) string {
	var b strings.Builder
	offset := 0
	for len(s)-offset > width {
		if s[offset] == ' ' {
			offset++
			continue
		}
		end := min(width+offset+1, len(s))
		if space := strings.LastIndex(s[offset:end], " "); space >= 0 {
			b.WriteString(s[offset : offset+space])
			b.WriteString("\n")
			offset += space + 1
			continue
		}
		// A word longer than the width: keep it whole, break after it.
		next := strings.IndexByte(s[width+offset:], ' ')
		if next < 0 {
			b.WriteString(s[offset:])
			offset = len(s)
			break
		}
		b.WriteString(s[offset : width+offset+next])
		b.WriteString("\n")
		offset = width + offset + next + 1
	}
	b.WriteString(s[offset:])
	return b.String()
}
