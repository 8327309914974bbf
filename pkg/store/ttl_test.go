package store

import (
	"errors"
	"testing"
	"time"
)

// A key put with a TTL is there at once and gone after the TTL passes
// without a renewal, deleted by etcd itself.
func TestPutWithTTLExpires(t *testing.T) {
	e := startTestEtcd(t)
	s := e.Store()
	ctx := testContext(t)
	if _, err := s.PutWithTTL(ctx, "/registry/masterleases/127.0.0.9", []byte("x"), time.Second); err != nil {
		t.Fatal(err)
	}
	if kv, err := s.Get(ctx, "/registry/masterleases/127.0.0.9"); err != nil || string(kv.Value) != "x" {
		t.Fatalf("right after the put: %q, %v", kv.Value, err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		_, err := s.Get(ctx, "/registry/masterleases/127.0.0.9")
		if errors.Is(err, ErrNotFound) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("key still there 15 s after its 1 s lease (last get: %v)", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
