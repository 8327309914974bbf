package describe

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"kplane/pkg/api"
)

// TestDescribeHPAV1LikeV2: an autoscaling/v1 HPA (the form kubectl 1.32's
// `autoscale` creates) is described from its v2 form, metrics and
// behavior from the annotations included.
func TestDescribeHPAV1LikeV2(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "hpa.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f fixture
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	s := Settings{ShowEvents: true, Now: goldenNow}
	want, err := Describe(f.input(), s)
	if err != nil {
		t.Fatal(err)
	}
	v2, err := decode[api.HorizontalPodAutoscaler](f.Object)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(api.HorizontalPodAutoscalerV1FromV2(v2))
	in := f.input()
	in.Object = map[string]any{}
	if err := json.Unmarshal(b, &in.Object); err != nil {
		t.Fatal(err)
	}
	got, err := Describe(in, s)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("v1 described:\n%s\nwant (v2):\n%s", got, want)
	}
}
