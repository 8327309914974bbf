package ctl

import (
	"os"
	"path/filepath"
	"testing"

	"kplane/test/framework"
)

// TestWrongTypedMetadataIsRefused checks that a manifest whose apiVersion
// or metadata fields have the wrong type is refused with kubectl's decoding
// error (checked against kubectl 1.32 with --validate=false), not read as if
// the field were absent.
func TestWrongTypedMetadataIsRefused(t *testing.T) {
	a := framework.StartAPIServer(t)
	dir := t.TempDir()
	const head = "apiVersion: v1\nkind: ConfigMap\n"
	for name, tc := range map[string]struct{ manifest, want string }{
		"apiversion":       {"apiVersion: 5\nkind: ConfigMap\nmetadata:\n  name: x\n", "json: cannot unmarshal number into Go struct field metadataOnlyObject.apiVersion of type string"},
		"metadata":         {head + "metadata: 5\n", "json: cannot unmarshal number into Go struct field metadataOnlyObject.metadata of type v1.ObjectMeta"},
		"metadata-list":    {head + "metadata: [a]\n", "json: cannot unmarshal array into Go struct field metadataOnlyObject.metadata of type v1.ObjectMeta"},
		"name":             {head + "metadata:\n  name: 5\n", "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string"},
		"name-object":      {head + "metadata:\n  name: {a: b}\n", "json: cannot unmarshal object into Go struct field ObjectMeta.metadata.name of type string"},
		"name-bool":        {head + "metadata:\n  name: true\n", "json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.name of type string"},
		"namespace":        {head + "metadata:\n  name: x\n  namespace: 5\n", "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.namespace of type string"},
		"labels":           {head + "metadata:\n  name: x\n  labels: foo\n", "json: cannot unmarshal string into Go struct field ObjectMeta.metadata.labels of type map[string]string"},
		"label-value":      {head + "metadata:\n  name: x\n  labels:\n    a: 5\n", "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string"},
		"annotations":      {head + "metadata:\n  name: x\n  annotations: foo\n", "json: cannot unmarshal string into Go struct field ObjectMeta.metadata.annotations of type map[string]string"},
		"annotation-value": {head + "metadata:\n  name: x\n  annotations:\n    a: [1]\n", "json: cannot unmarshal array into Go struct field ObjectMeta.metadata.annotations of type string"},
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name+".yaml")
			if err := os.WriteFile(path, []byte(tc.manifest), 0o644); err != nil {
				t.Fatal(err)
			}
			want := "error: unable to decode \"" + path + "\": " + tc.want + "\n"
			for _, verb := range []string{"apply", "create"} {
				code, out, errOut := ctlRun(t, a, "", verb, "-f", path)
				if code != 1 || out != "" || errOut != want {
					t.Errorf("ctl %s = %d\nstdout %q\nstderr %q\nwant 1 and stderr %q", verb, code, out, errOut, want)
				}
			}
		})
	}
	// Nothing was created, in default or anywhere else.
	code, out, errOut := ctlRun(t, a, "", "get", "configmaps", "-A", "-o", "name")
	if code != 0 || out != "" {
		t.Errorf("ctl get configmaps -A = %d %q %q, want no configmaps", code, out, errOut)
	}
}
