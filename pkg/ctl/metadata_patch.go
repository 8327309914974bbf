package ctl

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"

	jsonpatch "github.com/evanphx/json-patch/v5"

	"kplane/pkg/client"
)

// This file holds what `label` and `annotate` share: both change one map
// of an object's metadata and send the difference as a JSON merge patch,
// as kubectl does (a merge patch from the object read to the object
// changed, so only the touched keys travel, plus resourceVersion when
// --resource-version asks for a compare-and-swap).

// stringMap reads metadata.<field> (labels or annotations) as strings.
func stringMap(obj map[string]any, field string) map[string]string {
	meta, _ := obj["metadata"].(map[string]any)
	raw, _ := meta[field].(map[string]any)
	out := make(map[string]string, len(raw))
	for k, v := range raw {
		s, _ := v.(string)
		out[k] = s
	}
	return out
}

// setStringMap writes metadata.<field>, an empty map included: kubectl's
// unstructured SetLabels keeps an empty map, so removing a label the object
// does not have from an object with no labels still "changes" it (to
// `labels: {}`), and kubectl says "labeled" — reproduced here.
func setStringMap(obj map[string]any, field string, values map[string]string) {
	meta, _ := obj["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		obj["metadata"] = meta
	}
	raw := make(map[string]any, len(values))
	for k, v := range values {
		raw[k] = v
	}
	meta[field] = raw
}

// setResourceVersion sets (or with "" removes) metadata.resourceVersion.
func setResourceVersion(obj map[string]any, rv string) {
	meta, _ := obj["metadata"].(map[string]any)
	if meta == nil {
		return
	}
	if rv == "" {
		delete(meta, "resourceVersion")
		return
	}
	meta["resourceVersion"] = rv
}

// metadataChange is one object's label or annotation edit.
type metadataChange struct {
	// before is the object's JSON before the change.
	before []byte
	// after is the object's JSON after it.
	after []byte
}

// send patches the object with the merge patch from before to after.
func (m metadataChange) send(ctx context.Context, c *client.Client, info resourceInfo, dryRun dryRunStrategy, fieldManager string) (map[string]any, error) {
	patch, err := jsonpatch.CreateMergePatch(m.before, m.after)
	if err != nil {
		return nil, fmt.Errorf("compute the patch of %s: %w", info.objectName(), err)
	}
	opts := client.PatchOptions{DryRun: dryRun == "server", FieldManager: fieldManager}
	return info.dynamic(c).Patch(ctx, info.name, client.MergePatchType, patch, opts)
}

// marshalObject is the object's JSON (keys sorted, so two encodings of
// equal objects are equal bytes).
func marshalObject(obj map[string]any) ([]byte, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("encode object: %w", err)
	}
	return data, nil
}

// printKeyValues prints a --list: one key=value per line, sorted (kubectl
// prints them in map order), indented with a heading when several objects
// are listed.
func printKeyValues(w io.Writer, heading string, values map[string]string) {
	indent := ""
	if heading != "" {
		fmt.Fprintln(w, heading)
		indent = " "
	}
	for _, k := range sortedStringKeys(values) {
		fmt.Fprintf(w, "%s%s=%s\n", indent, k, values[k])
	}
}

// listHeading is kubectl's "Listing labels for Deployment.apps/web:" line.
func listHeading(what string, info resourceInfo) string {
	return fmt.Sprintf("Listing %s for %s.%s/%s:", what, info.resource.Kind, info.resource.Group, info.name)
}

// sortedStringKeys returns m's keys in order, so messages about several keys
// come out the same every time.
func sortedStringKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
