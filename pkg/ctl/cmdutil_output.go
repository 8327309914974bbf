package ctl

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"kplane/pkg/ctl/jsonpath"
	"kplane/pkg/ctl/printers"
)

// outputFormat is a parsed -o flag.
type outputFormat struct {
	// name is "" (the table), "wide", "name", "yaml", "json", "jsonpath",
	// "jsonpath-as-json", "go-template" or "custom-columns".
	name       string
	template   *jsonpath.Template
	goTemplate *printers.GoTemplate
	columns    *printers.CustomColumns
}

// templateFormats are the -o formats every object-printing verb takes, as
// in kubectl: a template given inline (jsonpath=…) or in a file.
var templateFormats = []string{"go-template", "go-template-file", "jsonpath", "jsonpath-as-json", "jsonpath-file", "template", "templatefile"}

// parseOutput reads -o; allowed lists the formats this verb supports
// besides the template ones, which every object-printing verb takes
// ("custom-columns" also allows custom-columns-file).
func parseOutput(value string, allowed ...string) (outputFormat, error) {
	if value == "" {
		return outputFormat{}, nil
	}
	name, arg, hasArg := strings.Cut(value, "=")
	switch name {
	case "jsonpath", "jsonpath-as-json", "jsonpath-file", "go-template", "go-template-file", "template", "templatefile":
		if !hasArg || arg == "" {
			return outputFormat{}, fmt.Errorf("template format specified but no template given")
		}
		return parseTemplateOutput(name, arg)
	case "custom-columns", "custom-columns-file":
		if !slices.Contains(allowed, "custom-columns") {
			break
		}
		return parseCustomColumnsOutput(name, arg)
	}
	if slices.Contains(allowed, value) && value != "custom-columns" {
		return outputFormat{name: value}, nil
	}
	formats := append(slices.Clone(allowed), templateFormats...)
	if slices.Contains(allowed, "custom-columns") {
		formats = append(formats, "custom-columns-file")
	}
	slices.Sort(formats)
	return outputFormat{}, fmt.Errorf("unable to match a printer suitable for the output format %q, allowed formats are: %s", value, strings.Join(formats, ","))
}

// parseTemplateOutput reads a JSONPath or Go template, inline or from the
// file the -o flag names.
func parseTemplateOutput(name, arg string) (outputFormat, error) {
	text := arg
	if strings.HasSuffix(name, "file") {
		data, err := os.ReadFile(arg)
		if err != nil {
			return outputFormat{}, fmt.Errorf("error reading --template %s, %w", arg, err)
		}
		text = string(data)
	}
	if strings.HasPrefix(name, "jsonpath") {
		t, err := jsonpath.Parse(text)
		if err != nil {
			return outputFormat{}, fmt.Errorf("error parsing jsonpath %s, %w", text, err)
		}
		if name == "jsonpath-as-json" {
			return outputFormat{name: name, template: t}, nil
		}
		return outputFormat{name: "jsonpath", template: t}, nil
	}
	t, err := printers.ParseGoTemplate(text)
	if err != nil {
		return outputFormat{}, err
	}
	return outputFormat{name: "go-template", goTemplate: t}, nil
}

// parseCustomColumnsOutput reads -o custom-columns=SPEC or
// custom-columns-file=FILE.
func parseCustomColumnsOutput(name, arg string) (outputFormat, error) {
	if name == "custom-columns" {
		c, err := printers.ParseCustomColumns(arg)
		return outputFormat{name: name, columns: c}, err
	}
	f, err := os.Open(arg)
	if err != nil {
		return outputFormat{}, fmt.Errorf("error reading template %s, %w", arg, err)
	}
	defer f.Close()
	c, err := printers.ParseCustomColumnsFile(f)
	return outputFormat{name: "custom-columns", columns: c}, err
}

// isTable reports the human-readable formats, printed from server Tables.
func (o outputFormat) isTable() bool { return o.name == "" || o.name == "wide" }

// printObjects prints objects in a non-table format. A single object that
// the user named prints as itself; anything else as a v1 List, as kubectl
// does for -o yaml|json|jsonpath. -o name prints one line per object,
// -o custom-columns one row per object.
func (o outputFormat) printObjects(w io.Writer, objects []map[string]any, single bool) error {
	switch o.name {
	case "name":
		for _, obj := range objects {
			fmt.Fprintln(w, printers.ObjectName(kindNameOf(obj), nameOf(obj)))
		}
		return nil
	case "custom-columns":
		return o.columns.Print(w, objects)
	}
	var doc any
	if single && len(objects) == 1 {
		doc = objects[0]
	} else {
		doc = printers.NewList(objects)
	}
	return o.printDocument(w, doc)
}

// printDocument prints one document (an object or a List) as YAML, JSON
// or through a template.
func (o outputFormat) printDocument(w io.Writer, doc any) error {
	switch o.name {
	case "yaml":
		return printers.PrintYAML(w, withoutManagedFields(doc))
	case "json":
		return printers.PrintJSON(w, withoutManagedFields(doc))
	case "jsonpath":
		if err := o.template.Execute(w, doc); err != nil {
			return fmt.Errorf("error executing jsonpath %q: Error executing template: %w", o.template.String(), err)
		}
		return nil
	case "jsonpath-as-json":
		return printJSONPathResults(w, o.template, doc)
	case "go-template":
		return o.goTemplate.Execute(w, doc)
	case "custom-columns":
		if obj, ok := doc.(map[string]any); ok {
			return o.columns.Print(w, []map[string]any{obj})
		}
	}
	return fmt.Errorf("output format %q cannot print objects", o.name)
}

// withoutManagedFields is doc (an object or a List) without
// metadata.managedFields, which kubectl leaves out of -o yaml and -o json
// unless asked (--show-managed-fields): they are the server's bookkeeping
// of field owners (server-side apply), long and rarely what the reader
// wants. The objects are copied where they change, never edited.
func withoutManagedFields(doc any) any {
	obj, ok := doc.(map[string]any)
	if !ok {
		return doc
	}
	if items, isList := obj["items"].([]any); isList {
		stripped := make([]any, len(items))
		for i, item := range items {
			stripped[i] = withoutManagedFields(item)
		}
		out := make(map[string]any, len(obj))
		for k, v := range obj {
			out[k] = v
		}
		out["items"] = stripped
		return out
	}
	meta, ok := obj["metadata"].(map[string]any)
	if !ok || meta["managedFields"] == nil {
		return doc
	}
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	trimmed := make(map[string]any, len(meta))
	for k, v := range meta {
		if k != "managedFields" {
			trimmed[k] = v
		}
	}
	out["metadata"] = trimmed
	return out
}

// printJSONPathResults is -o jsonpath-as-json: every value the template's
// expressions reach, as one indented JSON array.
func printJSONPathResults(w io.Writer, t *jsonpath.Template, doc any) error {
	results, err := t.Results(doc)
	if err != nil {
		return fmt.Errorf("error executing jsonpath %q: Error executing template: %w", t.String(), err)
	}
	all := []any{}
	for _, r := range results {
		all = append(all, r...)
	}
	return printers.PrintJSON(w, all)
}

// kindNameOf is the "<kind>[.<group>]" of an object, from its apiVersion
// and kind: "deployment.apps", "pod".
func kindNameOf(obj map[string]any) string {
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	kind = strings.ToLower(kind)
	if group, _, ok := strings.Cut(apiVersion, "/"); ok {
		return kind + "." + group
	}
	return kind
}

// nameOf and namespaceOf read the object's metadata.
func nameOf(obj map[string]any) string      { return metadataString(obj, "name") }
func namespaceOf(obj map[string]any) string { return metadataString(obj, "namespace") }

func metadataString(obj map[string]any, field string) string {
	meta, _ := obj["metadata"].(map[string]any)
	s, _ := meta[field].(string)
	return s
}

// dryRunStrategy is --dry-run: "" (none), "client" or "server".
type dryRunStrategy string

// parseDryRun reads --dry-run as kubectl 1.32 does.
func parseDryRun(value string) (dryRunStrategy, error) {
	switch value {
	case "", "none", "false":
		return "", nil
	case "client", "true":
		return "client", nil
	case "server":
		return "server", nil
	case "unchanged":
		return "", fmt.Errorf(`--dry-run flag without a value was specified. A value must be set: "none", "server", or "client".`)
	}
	return "", fmt.Errorf(`Invalid dry-run value (%v). Must be "none", "server", or "client".`, value)
}

// suffix is what kubectl appends to each message of a dry run.
func (d dryRunStrategy) suffix() string {
	switch d {
	case "client":
		return " (dry run)"
	case "server":
		return " (server dry run)"
	}
	return ""
}

// addDryRunFlag adds kubectl's --dry-run flag. A bare --dry-run is an
// error, as in kubectl since the flag took a value.
func addDryRunFlag(flags *pflag.FlagSet, p *string) {
	flags.StringVar(p, "dry-run", "none", `"none", "server" or "client": with client, only print the object that would be sent; with server, send it but ask the server not to store it`)
	flags.Lookup("dry-run").NoOptDefVal = "unchanged"
}

// printResult prints what a write did: `deployment.apps/ng-dep created`
// (with the dry-run suffix), or the object itself with -o.
func printResult(w io.Writer, out outputFormat, obj map[string]any, operation string, dryRun dryRunStrategy) error {
	switch out.name {
	case "":
		_, err := fmt.Fprintf(w, "%s %s%s\n", printers.ObjectName(kindNameOf(obj), nameOf(obj)), operation, dryRun.suffix())
		return err
	case "name":
		_, err := fmt.Fprintln(w, printers.ObjectName(kindNameOf(obj), nameOf(obj)))
		return err
	}
	return out.printDocument(w, obj)
}
