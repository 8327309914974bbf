package store

import (
	"context"
	"testing"
)

// BenchmarkRawEtcdPut16 measures plain etcd puts of 1 KiB values from 16
// clients into an embedded etcd: the yardstick for the apiserver's write
// benchmarks (upstream measured etcd the same way).
func BenchmarkRawEtcdPut16(b *testing.B) {
	e := startTestEtcd(b)
	b.ResetTimer()
	opsPerSec, err := MeasureRawPuts(context.Background(), []string{e.ClientURL()}, 16, b.N, 1024)
	if err != nil {
		b.Fatalf("MeasureRawPuts: %v", err)
	}
	b.StopTimer()
	b.ReportMetric(opsPerSec, "ops/s")
}

func TestMeasureRawPuts(t *testing.T) {
	t.Parallel()
	e := startTestEtcd(t)
	ctx := testContext(t)
	before, _ := e.Store().CurrentRevision(ctx)
	ops, err := MeasureRawPuts(ctx, []string{e.ClientURL()}, 4, 40, 100)
	if err != nil {
		t.Fatalf("MeasureRawPuts: %v", err)
	}
	if ops <= 0 {
		t.Errorf("ops/s = %v, want > 0", ops)
	}
	after, _ := e.Store().CurrentRevision(ctx)
	// 40 puts and one delete of them all.
	if after-before != 41 {
		t.Errorf("revision moved by %d, want 41 (40 puts and the clean-up)", after-before)
	}
	left, err := e.Store().List(ctx, rawPutsPrefix, ListOptions{})
	if err != nil || len(left.Items) != 0 {
		t.Errorf("MeasureRawPuts left %d keys behind (err %v)", len(left.Items), err)
	}
	if _, err := MeasureRawPuts(ctx, []string{e.ClientURL()}, 0, 10, 1); err == nil {
		t.Errorf("MeasureRawPuts with 0 clients succeeded")
	}
}
