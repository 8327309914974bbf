package controllerutil

import (
	"testing"
	"time"

	"kplane/pkg/clock"
)

func TestExpectations(t *testing.T) {
	clk := clock.NewFake(time.Unix(1000, 0))
	e := NewExpectations(clk)
	const rs = "default/web"

	if !e.Satisfied(rs) {
		t.Fatal("an owner with no record must be satisfied")
	}
	e.ExpectCreations(rs, 2)
	if e.Satisfied(rs) {
		t.Fatal("satisfied with 2 creates outstanding")
	}
	e.CreationObserved(rs)
	if e.Satisfied(rs) {
		t.Fatal("satisfied with 1 create outstanding")
	}
	e.CreationObserved(rs)
	if !e.Satisfied(rs) {
		t.Fatal("not satisfied after both creates were observed")
	}
	e.CreationObserved(rs) // an extra observation must not go negative and block later
	e.ExpectCreations(rs, 1)
	if adds, _ := e.Pending(rs); adds != 1 {
		t.Fatalf("pending adds = %d, want 1", adds)
	}
	e.CreationObserved(rs)

	e.ExpectDeletions(rs, []string{"default/web-a", "default/web-b"})
	e.DeletionObserved(rs, "default/web-a")
	e.DeletionObserved(rs, "default/web-a") // seen twice (graceful delete, then gone): counted once
	if e.Satisfied(rs) {
		t.Fatal("satisfied while web-b's deletion is outstanding")
	}
	e.DeletionObserved(rs, "default/web-b")
	if !e.Satisfied(rs) {
		t.Fatal("not satisfied after both deletions were observed")
	}
}

func TestExpectCreationsAndDeletionsInOneSync(t *testing.T) {
	e := NewExpectations(clock.NewFake(time.Unix(1000, 0)))
	e.ExpectDeletions("ns/ds", []string{"ns/old"})
	e.ExpectCreations("ns/ds", 1)
	if adds, dels := e.Pending("ns/ds"); adds != 1 || dels != 1 {
		t.Fatalf("pending = %d adds, %d deletes; want both kept (1, 1)", adds, dels)
	}
	e.CreationObserved("ns/ds")
	if e.Satisfied("ns/ds") {
		t.Fatal("satisfied while a deletion is outstanding")
	}
	e.DeletionObserved("ns/ds", "ns/old")
	if !e.Satisfied("ns/ds") {
		t.Fatal("not satisfied after the create and the delete were observed")
	}
}

func TestExpectationsExpire(t *testing.T) {
	clk := clock.NewFake(time.Unix(1000, 0))
	e := NewExpectations(clk)
	e.ExpectCreations("ns/a", 3)
	clk.Step(ExpectationsTimeout)
	if e.Satisfied("ns/a") {
		t.Fatal("satisfied exactly at the timeout; expected to wait until it has passed")
	}
	clk.Step(time.Second)
	if !e.Satisfied("ns/a") {
		t.Fatal("expectations older than the timeout must not block a sync")
	}
	e.Delete("ns/a")
	if adds, dels := e.Pending("ns/a"); adds != 0 || dels != 0 {
		t.Fatalf("after Delete pending = %d/%d", adds, dels)
	}
}
