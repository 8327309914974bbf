package ctl

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"kplane/pkg/ctl/jsonpath"
	"kplane/pkg/ctl/printers"
)

// outputFormat is a parsed -o flag.
type outputFormat struct {
	// name is "" (the table), "wide", "name", "yaml", "json" or "jsonpath".
	name     string
	template *jsonpath.Template
}

// parseOutput reads -o; allowed lists the formats this verb supports
// besides the jsonpath one, which every object-printing verb takes.
func parseOutput(value string, allowed ...string) (outputFormat, error) {
	if value == "" {
		return outputFormat{}, nil
	}
	if name, template, ok := strings.Cut(value, "="); ok && name == "jsonpath" {
		t, err := jsonpath.Parse(template)
		if err != nil {
			return outputFormat{}, fmt.Errorf("error parsing jsonpath %s, %w", template, err)
		}
		return outputFormat{name: "jsonpath", template: t}, nil
	}
	if value == "jsonpath" {
		return outputFormat{}, fmt.Errorf("template format specified but no template given")
	}
	for _, a := range allowed {
		if value == a {
			return outputFormat{name: value}, nil
		}
	}
	formats := append(append([]string{}, allowed...), "jsonpath")
	slices.Sort(formats)
	return outputFormat{}, fmt.Errorf("unable to match a printer suitable for the output format %q, allowed formats are: %s", value, strings.Join(formats, ","))
}

// isTable reports the human-readable formats, printed from server Tables.
func (o outputFormat) isTable() bool { return o.name == "" || o.name == "wide" }

// printObjects prints objects in a non-table format. A single object that
// the user named prints as itself; anything else as a v1 List, as kubectl
// does for -o yaml|json|jsonpath. -o name prints one line per object.
func (o outputFormat) printObjects(w io.Writer, objects []map[string]any, single bool) error {
	if o.name == "name" {
		for _, obj := range objects {
			fmt.Fprintln(w, printers.ObjectName(kindNameOf(obj), nameOf(obj)))
		}
		return nil
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
// or through the JSONPath template.
func (o outputFormat) printDocument(w io.Writer, doc any) error {
	switch o.name {
	case "yaml":
		return printers.PrintYAML(w, doc)
	case "json":
		return printers.PrintJSON(w, doc)
	case "jsonpath":
		if err := o.template.Execute(w, doc); err != nil {
			return fmt.Errorf("error executing jsonpath %q: Error executing template: %w", o.template.String(), err)
		}
		return nil
	}
	return fmt.Errorf("output format %q cannot print objects", o.name)
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
