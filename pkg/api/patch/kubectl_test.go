package patch

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"kplane/pkg/api"
)

// The patches below were captured from the real kubectl v1.32 talking to a
// stub server that served the live object in testdata/kubectl-apply/live.json
// (a Deployment first applied from a file and defaulted by a server).
//
// testdata/kubectl-apply/patch.json is what `kubectl apply -f` sent for an
// edited file: image nginx:1.26 → 1.27, port 443 added, label tier removed,
// container sidecar removed, env A removed and B changed, volume and mount
// added, finalizer example.com/b replaced by example.com/c, strategy
// RollingUpdate → Recreate. want.json is the result upstream gives, worked
// out by hand from the strategic merge patch rules.
func TestKubectlApplyPatch(t *testing.T) {
	live, patch, wantDoc := capturedApply(t)
	want := canonical(t, string(wantDoc))

	// The stand-in type and kplane's real Deployment carry the same tags,
	// so they must give the same result.
	for _, typ := range []reflect.Type{deploymentType, reflect.TypeFor[api.Deployment]()} {
		t.Run(typ.String(), func(t *testing.T) {
			got, err := Apply(StrategicMergePatchType, live, patch, typ)
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			if string(got) != want {
				t.Errorf("Apply =\n%s\nwant\n%s", got, want)
			}

			// kubectl apply is idempotent: the same patch again changes nothing.
			again, err := Apply(StrategicMergePatchType, got, patch, typ)
			if err != nil {
				t.Fatalf("second Apply: %v", err)
			}
			if string(again) != want {
				t.Errorf("applying the same patch twice changed the object:\n%s", again)
			}
		})
	}
}

// TestThreeWayMergeMatchesKubectl replays the same captured apply from the
// client's side: the live object, the last applied configuration it
// carries and the edited file must give the very patch kubectl sent, and
// applying it must give the object upstream ends with.
func TestThreeWayMergeMatchesKubectl(t *testing.T) {
	live, kubectlPatch, want := capturedApply(t)

	var liveObj struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	var sent struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	json.Unmarshal(live, &liveObj)
	json.Unmarshal(kubectlPatch, &sent)
	original := liveObj.Metadata.Annotations[lastApplied]
	modified := withAnnotation(t, sent.Metadata.Annotations[lastApplied])

	got, err := CreateThreeWayMergePatch([]byte(original), modified, live, deploymentSchema)
	if err != nil {
		t.Fatal(err)
	}
	if canonical(t, string(got)) != canonical(t, string(kubectlPatch)) {
		t.Errorf("patch differs from kubectl's:\n got %s\nwant %s", got, kubectlPatch)
	}
	applied, err := Apply(StrategicMergePatchType, live, got, reflect.TypeFor[api.Deployment]())
	if err != nil {
		t.Fatal(err)
	}
	if canonical(t, string(applied)) != canonical(t, string(want)) {
		t.Errorf("applying the patch gives\n%s\nwant\n%s", canonical(t, string(applied)), canonical(t, string(want)))
	}

	// The second apply of the same file finds nothing to do.
	again, err := CreateThreeWayMergePatch(modifiedAnnotation(t, applied), modified, applied, deploymentSchema)
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != "{}" {
		t.Errorf("second apply patch = %s, want {}", again)
	}
}

// modifiedAnnotation reads the last-applied annotation of an object.
func modifiedAnnotation(t *testing.T, obj []byte) []byte {
	t.Helper()
	var o struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(obj, &o); err != nil {
		t.Fatal(err)
	}
	return []byte(o.Metadata.Annotations[lastApplied])
}

// TestKubectlPatches covers the other commands kplane's lessons use, with
// the bodies and content types kubectl v1.32 sends.
func TestKubectlPatches(t *testing.T) {
	live := `{"metadata":{"name":"web","labels":{"app":"web","tier":"frontend"},"annotations":{"a":"1"}},` +
		`"spec":{"replicas":2,"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"nginx","image":"nginx:1.26"},{"name":"sidecar","image":"busybox"}]}}}}`
	tests := []struct {
		command   string
		patchType string
		patch     string
		want      string
	}{
		{
			command:   "kubectl label deploy web tier=web --overwrite",
			patchType: MergePatchType,
			patch:     `{"metadata":{"labels":{"tier":"web"}}}`,
			want: `{"metadata":{"name":"web","labels":{"app":"web","tier":"web"},"annotations":{"a":"1"}},` +
				`"spec":{"replicas":2,"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"nginx","image":"nginx:1.26"},{"name":"sidecar","image":"busybox"}]}}}}`,
		},
		{
			command:   "kubectl label deploy web tier-",
			patchType: MergePatchType,
			patch:     `{"metadata":{"labels":{"tier":null}}}`,
			want: `{"metadata":{"name":"web","labels":{"app":"web"},"annotations":{"a":"1"}},` +
				`"spec":{"replicas":2,"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"nginx","image":"nginx:1.26"},{"name":"sidecar","image":"busybox"}]}}}}`,
		},
		{
			command:   "kubectl annotate deploy web note=hi",
			patchType: MergePatchType,
			patch:     `{"metadata":{"annotations":{"note":"hi"}}}`,
			want: `{"metadata":{"name":"web","labels":{"app":"web","tier":"frontend"},"annotations":{"a":"1","note":"hi"}},` +
				`"spec":{"replicas":2,"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"nginx","image":"nginx:1.26"},{"name":"sidecar","image":"busybox"}]}}}}`,
		},
		{
			command:   "kubectl scale deploy web --replicas=5 (on the scale subresource)",
			patchType: MergePatchType,
			patch:     `{"spec":{"replicas":5}}`,
			want: `{"metadata":{"name":"web","labels":{"app":"web","tier":"frontend"},"annotations":{"a":"1"}},` +
				`"spec":{"replicas":5,"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"nginx","image":"nginx:1.26"},{"name":"sidecar","image":"busybox"}]}}}}`,
		},
		{
			command:   `kubectl patch deploy web -p '{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.28"}]}}}}'`,
			patchType: StrategicMergePatchType,
			patch:     `{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.28"}]}}}}`,
			want: `{"metadata":{"name":"web","labels":{"app":"web","tier":"frontend"},"annotations":{"a":"1"}},` +
				`"spec":{"replicas":2,"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"nginx","image":"nginx:1.28"},{"name":"sidecar","image":"busybox"}]}}}}`,
		},
		{
			command:   "kubectl rollout restart deploy web",
			patchType: StrategicMergePatchType,
			patch:     `{"spec":{"template":{"metadata":{"annotations":{"kubectl.kubernetes.io/restartedAt":"2026-11-22T00:25:08Z"}}}}}`,
			want: `{"metadata":{"name":"web","labels":{"app":"web","tier":"frontend"},"annotations":{"a":"1"}},` +
				`"spec":{"replicas":2,"template":{"metadata":{"labels":{"app":"web"},"annotations":{"kubectl.kubernetes.io/restartedAt":"2026-11-22T00:25:08Z"}},"spec":{"containers":[{"name":"nginx","image":"nginx:1.26"},{"name":"sidecar","image":"busybox"}]}}}}`,
		},
		{
			command:   "kubectl rollout pause deploy web",
			patchType: StrategicMergePatchType,
			patch:     `{"spec":{"paused":true}}`,
			want: `{"metadata":{"name":"web","labels":{"app":"web","tier":"frontend"},"annotations":{"a":"1"}},` +
				`"spec":{"replicas":2,"paused":true,"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"nginx","image":"nginx:1.26"},{"name":"sidecar","image":"busybox"}]}}}}`,
		},
		{
			command:   "kubectl rollout undo deploy web (kubectl sends the old template as a JSON patch)",
			patchType: JSONPatchType,
			patch: `[{"op":"replace","path":"/spec/template","value":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"nginx","image":"nginx:1.25"}]}}},` +
				`{"op":"replace","path":"/metadata/annotations","value":{"a":"1","deployment.kubernetes.io/revision":"3"}}]`,
			want: `{"metadata":{"name":"web","labels":{"app":"web","tier":"frontend"},"annotations":{"a":"1","deployment.kubernetes.io/revision":"3"}},` +
				`"spec":{"replicas":2,"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"nginx","image":"nginx:1.25"}]}}}}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.command, func(t *testing.T) {
			got, err := Apply(tc.patchType, []byte(live), []byte(tc.patch), deploymentType)
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			if canonical(t, string(got)) != canonical(t, tc.want) {
				t.Errorf("Apply =\n%s\nwant\n%s", canonical(t, string(got)), canonical(t, tc.want))
			}
		})
	}
}

// TestBriefExample is the second-apply patch of the task description:
// image changed, a port added, a label removed.
func TestBriefExample(t *testing.T) {
	live := `{"metadata":{"name":"web","labels":{"app":"web","tier":"frontend"},"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"old"}},` +
		`"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.26","ports":[{"containerPort":80,"protocol":"TCP"}]}]}}}}`
	patch := `{"metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"new"},"labels":{"tier":null}},` +
		`"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"nginx"}],"containers":[{"image":"nginx:1.27","name":"nginx",` +
		`"$setElementOrder/ports":[{"containerPort":80},{"containerPort":443}],"ports":[{"containerPort":443}]}]}}}}`
	want := `{"metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"new"},"labels":{"app":"web"},"name":"web"},` +
		`"spec":{"template":{"spec":{"containers":[{"image":"nginx:1.27","name":"nginx","ports":[{"containerPort":80,"protocol":"TCP"},{"containerPort":443}]}]}}}}`
	got, err := Apply(StrategicMergePatchType, []byte(live), []byte(patch), deploymentType)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != canonical(t, want) {
		t.Errorf("Apply =\n%s\nwant\n%s", got, canonical(t, want))
	}
}

// capturedApply reads the kubectl apply captured in testdata/kubectl-apply
// (see TestKubectlApplyPatch): the live object, the patch kubectl sent and
// the object upstream ends with.
func capturedApply(tb testing.TB) (live, patch, want []byte) {
	tb.Helper()
	read := func(name string) []byte {
		data, err := os.ReadFile(filepath.Join("testdata", "kubectl-apply", name))
		if err != nil {
			tb.Fatal(err)
		}
		return data
	}
	return read("live.json"), read("patch.json"), read("want.json")
}
