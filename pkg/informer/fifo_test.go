package informer

import (
	"strings"
	"testing"
)

func TestParseFIFOKind(t *testing.T) {
	for _, s := range []string{"delta", "real"} {
		if k, err := ParseFIFOKind(s); err != nil || string(k) != s {
			t.Errorf("ParseFIFOKind(%q) = %q, %v", s, k, err)
		}
	}
	for _, s := range []string{"", "Delta", "fifo"} {
		if _, err := ParseFIFOKind(s); err == nil || !strings.Contains(err.Error(), "must be one of delta, real") {
			t.Errorf("ParseFIFOKind(%q) = %v, want an error listing delta, real", s, err)
		}
	}
	var k FIFOKind
	if err := k.Set("real"); err != nil || k != FIFOReal {
		t.Errorf("Set(real) = %v, kind %q", err, k)
	}
}

func TestNewFIFOBuildsTheKindAsked(t *testing.T) {
	if _, ok := newFIFO(FIFODelta, nil, nil).(*DeltaFIFO); !ok {
		t.Error("FIFODelta did not build a DeltaFIFO")
	}
	if _, ok := newFIFO("", nil, nil).(*DeltaFIFO); !ok {
		t.Error("the empty kind did not build a DeltaFIFO (the default)")
	}
	if _, ok := newFIFO(FIFOReal, nil, nil).(*RealFIFO); !ok {
		t.Error("FIFOReal did not build a RealFIFO")
	}
}
