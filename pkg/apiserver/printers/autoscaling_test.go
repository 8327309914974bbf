package printers

import (
	"reflect"
	"testing"

	"kplane/pkg/api"
)

// TestHPAV1PrintsLikeV2: an autoscaling/v1 HPA is printed from its v2 form,
// so `kubectl get hpa` shows the same row through either version — TARGETS
// included, which for v1 comes from the annotations.
func TestHPAV1PrintsLikeV2(t *testing.T) {
	for _, obj := range hpaFixtures() {
		v2 := obj.(*api.HorizontalPodAutoscaler)
		if len(v2.Spec.Metrics) == 0 {
			continue // the apiserver's defaulting never stores an HPA without metrics
		}
		v1 := api.HorizontalPodAutoscalerV1FromV2(v2)
		if got, want := Cells(v1, testNow), Cells(v2, testNow); !reflect.DeepEqual(got, want) {
			t.Errorf("%s through v1: %v, want %v", v2.Name, got, want)
		}
	}
	if got := Cells(hpaFixtures()[0], testNow)[2]; got != "cpu: 250%/50%" {
		t.Errorf("TARGETS = %v, want cpu: 250%%/50%%", got)
	}
}
