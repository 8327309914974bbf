package simload

import (
	"maps"
	"testing"
	"time"
)

func TestContainerLoad(t *testing.T) {
	tests := []struct {
		name        string
		annotations map[string]string
		container   string
		want        Load
		problems    int
	}{
		{"no annotations: idle", nil, "web", Load{DefaultMilliCPU, DefaultMemoryBytes, true}, 0},
		{"pod-wide figures", map[string]string{CPUAnnotation: "300m", MemoryAnnotation: "200Mi"}, "web",
			Load{300, 200 << 20, true}, 0},
		{"the per-container form wins", map[string]string{CPUAnnotation: "300m", CPUAnnotation + ".side": "50m"}, "side",
			Load{50, DefaultMemoryBytes, true}, 0},
		{"another container keeps the pod-wide figure", map[string]string{CPUAnnotation: "300m", CPUAnnotation + ".side": "50m"}, "web",
			Load{300, DefaultMemoryBytes, true}, 0},
		{"noise off", map[string]string{CPUAnnotation: "1", NoiseAnnotation: "0"}, "web", Load{1000, DefaultMemoryBytes, false}, 0},
		{"unreadable figures fall back and are reported", map[string]string{CPUAnnotation: "lots", MemoryAnnotation: "-5Mi"}, "web",
			Load{DefaultMilliCPU, DefaultMemoryBytes, true}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, problems := ContainerLoad(tt.annotations, tt.container)
			if got != tt.want || len(problems) != tt.problems {
				t.Errorf("ContainerLoad = %+v, problems %v; want %+v with %d problems", got, problems, tt.want, tt.problems)
			}
		})
	}
}

func TestLoadAnnotations(t *testing.T) {
	in := map[string]string{
		CPUAnnotation: "1", MemoryAnnotation + ".web": "1Mi", NoiseAnnotation: "0",
		Prefix + "run-seconds": "10", Prefix + "cpu.": "x", "app": "web", Prefix + "cpux": "1",
	}
	want := map[string]string{CPUAnnotation: "1", MemoryAnnotation + ".web": "1Mi", NoiseAnnotation: "0"}
	if got := LoadAnnotations(in); !maps.Equal(got, want) {
		t.Errorf("LoadAnnotations = %v, want %v", got, want)
	}
	if LoadAnnotations(map[string]string{"app": "web"}) != nil || HasLoad(map[string]string{Prefix + "logs": "x"}) {
		t.Error("non-load annotations were taken for load annotations")
	}
}

// TestNoiseBounds checks the contract: a sample is never above its figure
// and never more than MaxNoise below it, whatever the draw.
func TestNoiseBounds(t *testing.T) {
	const figure = 150_000_000 // 150m in nanocores
	lowest := uint64(figure * (1 - MaxNoise))
	for _, u := range []float64{0, 1e-9, 0.25, 0.5, 0.999999, 1, 7, -1} {
		got := Noise(figure, u, true)
		if got > figure || got < lowest {
			t.Errorf("Noise(%d, %v) = %d, outside [%d, %d]", figure, u, got, lowest, figure)
		}
	}
	if got := Noise(figure, 0.9, false); got != figure {
		t.Errorf("Noise without noise = %d, want %d", got, figure)
	}
	if got := Noise(figure, 0.5, true); got != figure-figure/100 {
		t.Errorf("Noise(u=0.5) = %d, want 1 %% below", got)
	}
}

// TestCPUCounter integrates a rate on a stepped clock: the counter is
// exact over any sequence of steps, follows rate changes from the moment
// they happen, and never goes back.
func TestCPUCounter(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := NewCPUCounter(start, 300_000_000) // 300m
	if got := c.Advance(start.Add(time.Hour)); got != 1080*1e9 {
		t.Errorf("after an hour at 300m: %d core-ns, want 1080 core-seconds", got)
	}
	// Many short steps add up to one long one (the remainder is carried).
	c = NewCPUCounter(start, 333_333_333)
	now := start
	for range 1000 {
		now = now.Add(7 * time.Millisecond)
		c.Advance(now)
	}
	want := NewCPUCounter(start, 333_333_333).Advance(now)
	if got := c.Advance(now); got != want {
		t.Errorf("1000 steps: %d, one step: %d", got, want)
	}
	// A rate change counts from the moment it is made.
	c = NewCPUCounter(start, 100_000_000)
	c.SetRate(start.Add(10*time.Second), 500_000_000)
	if got := c.Advance(start.Add(20 * time.Second)); got != 6*1e9 {
		t.Errorf("10 s at 100m then 10 s at 500m = %d core-ns, want 6 core-seconds", got)
	}
	if got := c.Advance(start); got != 6*1e9 {
		t.Errorf("a clock stepped back changed the counter to %d", got)
	}
	if c.Rate() != 500_000_000 {
		t.Errorf("Rate = %d", c.Rate())
	}
}

func TestNodeUsageIsSumPlusBase(t *testing.T) {
	cpu, mem := NodeUsage(450_000_000, 300<<20)
	if cpu != (450+NodeBaseMilliCPU)*1e6 || mem != (300<<20)+NodeBaseMemoryBytes {
		t.Errorf("NodeUsage = %d nanocores, %d bytes", cpu, mem)
	}
}
