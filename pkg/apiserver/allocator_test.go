package apiserver

import (
	"context"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
)

// peerAllocators returns n allocators on one store, as n apiservers on one
// etcd, after the start-up repair pass created the ranges.
func peerAllocators(t *testing.T, st *memStore, n int) []*serviceAllocators {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	var peers []*serviceAllocators
	for i := 0; i < n; i++ {
		a := newServiceAllocators(st, log)
		repair := newAllocatorRepair(a, func(context.Context) ([]*api.Service, error) { return nil, nil }, log)
		if err := repair.runOnce(context.Background()); err != nil {
			t.Fatalf("start-up repair: %v", err)
		}
		peers = append(peers, a)
	}
	return peers
}

// storedBitmap reads a range's bitmap straight from the store.
func storedBitmap(t *testing.T, r *rangeAllocation) *allocationBitmap {
	t.Helper()
	bits, _, err := r.read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return bits
}

func TestAllocateClusterIPsAndNodePorts(t *testing.T) {
	ctx := context.Background()
	a := peerAllocators(t, newMemStore(), 1)[0]
	seen := map[string]bool{}
	for i := 0; i < 200; i++ {
		svc := &api.Service{Spec: api.ServiceSpec{Type: api.ServiceTypeNodePort, Ports: []api.ServicePort{{Port: 80}}}}
		if _, err := a.admitService(ctx, svc, nil, false); err != nil {
			t.Fatal(err)
		}
		ip := net.ParseIP(svc.Spec.ClusterIP)
		_, ipNet, _ := net.ParseCIDR(serviceCIDR)
		if ip == nil || !ipNet.Contains(ip) || seen[svc.Spec.ClusterIP] || svc.Spec.ClusterIP == "10.96.0.0" {
			t.Fatalf("allocated %q (seen before: %v)", svc.Spec.ClusterIP, seen[svc.Spec.ClusterIP])
		}
		seen[svc.Spec.ClusterIP] = true
		if p := svc.Spec.Ports[0].NodePort; p < nodePortMin || p > nodePortMax {
			t.Fatalf("node port %d out of range", p)
		}
	}
	if used := storedBitmap(t, a.ips.shared).used(); used != 200 {
		t.Errorf("stored ClusterIP bitmap holds %d addresses, want 200", used)
	}

	// A requested address: free, taken, out of range, the network address.
	for _, tc := range []struct {
		ip      string
		message string // "" = accepted
	}{
		{"10.100.0.7", ""},
		{"10.100.0.7", "failed to allocate IP 10.100.0.7: provided IP is already allocated"},
		{"192.168.0.1", "failed to allocate IP 192.168.0.1: the provided IP (192.168.0.1) is not in the valid range. The range of valid IPs is 10.96.0.0/12"},
		{"10.96.0.0", "is not in the valid range"},
	} {
		svc := &api.Service{ObjectMeta: api.ObjectMeta{Name: "s"}, Spec: api.ServiceSpec{ClusterIP: tc.ip, Ports: []api.ServicePort{{Port: 80}}}}
		_, err := a.admitService(ctx, svc, nil, false)
		if tc.message == "" {
			if err != nil {
				t.Errorf("request %s: %v", tc.ip, err)
			}
			continue
		}
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tc.message) {
			t.Errorf("request %s: err %v, want 422 Invalid with %q", tc.ip, err, tc.message)
		}
	}

	// Headless services get no address; release undoes a failed write.
	headless := &api.Service{Spec: api.ServiceSpec{ClusterIP: api.ClusterIPNone}}
	if _, err := a.admitService(ctx, headless, nil, false); err != nil || headless.Spec.ClusterIPs[0] != api.ClusterIPNone {
		t.Errorf("headless: %v %v", err, headless.Spec.ClusterIPs)
	}
	svc := &api.Service{Spec: api.ServiceSpec{ClusterIP: "10.100.0.8"}}
	release, err := a.admitService(ctx, svc, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	release()
	offset, _ := a.ips.offset(net.ParseIP("10.100.0.8"))
	if storedBitmap(t, a.ips.shared).has(offset) {
		t.Error("release kept the address in etcd")
	}

	// An update keeps the address and node port; deleting frees them.
	old := &api.Service{Spec: api.ServiceSpec{Type: api.ServiceTypeNodePort, Ports: []api.ServicePort{{Port: 80, Protocol: api.ProtocolTCP}}}}
	if _, err := a.admitService(ctx, old, nil, false); err != nil {
		t.Fatal(err)
	}
	next := &api.Service{Spec: api.ServiceSpec{Type: api.ServiceTypeNodePort, Ports: []api.ServicePort{{Port: 80, Protocol: api.ProtocolTCP}}}}
	if _, err := a.admitService(ctx, next, old, false); err != nil {
		t.Fatal(err)
	}
	if next.Spec.ClusterIP != old.Spec.ClusterIP || next.Spec.Ports[0].NodePort != old.Spec.Ports[0].NodePort {
		t.Errorf("update changed allocations: %+v vs %+v", next.Spec, old.Spec)
	}
	a.releaseService(next, nil)
	ipOffset, _ := a.ips.offset(net.ParseIP(next.Spec.ClusterIP))
	portOffset, _ := a.ports.offset(next.Spec.Ports[0].NodePort)
	if storedBitmap(t, a.ips.shared).has(ipOffset) || storedBitmap(t, a.ports.shared).has(portOffset) {
		t.Error("delete kept the allocations in etcd")
	}
}

func TestNodePortRefusals(t *testing.T) {
	ctx := context.Background()
	a := peerAllocators(t, newMemStore(), 1)[0]
	nodePort := func(ports ...int32) *api.Service {
		svc := &api.Service{ObjectMeta: api.ObjectMeta{Name: "np"}, Spec: api.ServiceSpec{Type: api.ServiceTypeNodePort}}
		for i, p := range ports {
			svc.Spec.Ports = append(svc.Spec.Ports, api.ServicePort{Port: int32(80 + i), NodePort: p})
		}
		return svc
	}
	if _, err := a.admitService(ctx, nodePort(30080), nil, false); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		svc   *api.Service
		field string
		msg   string
	}{
		{"taken", nodePort(0, 30080), "spec.ports[1].nodePort", "provided port is already allocated"},
		{"out of range", nodePort(80), "spec.ports[0].nodePort", "provided port is not in the valid range. The range of valid ports is 30000-32767"},
	} {
		_, err := a.admitService(ctx, tc.svc, nil, false)
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tc.field) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: err %v, want 422 on %s: %s", tc.name, err, tc.field, tc.msg)
		}
	}
	// The refused Service's random port and ClusterIP went back: only the
	// first Service's allocations remain.
	if ips, ports := storedBitmap(t, a.ips.shared).used(), storedBitmap(t, a.ports.shared).used(); ips != 1 || ports != 1 {
		t.Errorf("after refusals the ranges hold %d addresses and %d ports, want 1 and 1", ips, ports)
	}
}

func TestDryRunAllocatesNothing(t *testing.T) {
	ctx := context.Background()
	st := newMemStore()
	a := peerAllocators(t, st, 1)[0]
	writes := st.writes
	svc := &api.Service{Spec: api.ServiceSpec{Type: api.ServiceTypeNodePort, ClusterIP: "10.96.5.5", Ports: []api.ServicePort{{Port: 80}}}}
	if _, err := a.admitService(ctx, svc, nil, true); err != nil {
		t.Fatal(err)
	}
	if svc.Spec.ClusterIP != "10.96.5.5" || svc.Spec.Ports[0].NodePort == 0 {
		t.Errorf("dry run did not fill the service in: %+v", svc.Spec)
	}
	if st.writes != writes {
		t.Errorf("dry run wrote %d times to the store", st.writes-writes)
	}
}

// Two apiservers that each saw the ranges before the other allocated: the
// second's compare-and-swap fails, it reads again and refuses (or picks
// another value); no value is ever handed out twice.
func TestPeersNeverShareAnAllocation(t *testing.T) {
	ctx := context.Background()
	st := newMemStore()
	peers := peerAllocators(t, st, 2)
	// Both read the ranges now, so each holds a copy the other will outdate.
	for _, p := range peers {
		if err := p.ips.shared.peek(ctx, func(*allocationBitmap) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	first := &api.Service{Spec: api.ServiceSpec{ClusterIP: "10.96.1.1"}}
	if _, err := peers[0].admitService(ctx, first, nil, false); err != nil {
		t.Fatal(err)
	}
	second := &api.Service{ObjectMeta: api.ObjectMeta{Name: "second"}, Spec: api.ServiceSpec{ClusterIP: "10.96.1.1"}}
	_, err := peers[1].admitService(ctx, second, nil, false)
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "provided IP is already allocated") {
		t.Fatalf("second apiserver allocated a taken address: err %v", err)
	}

	// Concurrent random allocations over both: all distinct.
	var mu sync.Mutex
	ips, ports := map[string]int{}, map[int32]int{}
	var wg sync.WaitGroup
	for i := 0; i < 200; i++ {
		wg.Add(1)
		go func(p *serviceAllocators) {
			defer wg.Done()
			svc := &api.Service{Spec: api.ServiceSpec{Type: api.ServiceTypeNodePort, Ports: []api.ServicePort{{Port: 80}}}}
			if _, err := p.admitService(ctx, svc, nil, false); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			ips[svc.Spec.ClusterIP]++
			ports[svc.Spec.Ports[0].NodePort]++
			mu.Unlock()
		}(peers[i%2])
	}
	wg.Wait()
	if len(ips) != 200 || len(ports) != 200 {
		t.Errorf("200 services got %d distinct addresses and %d distinct node ports", len(ips), len(ports))
	}
	if used := storedBitmap(t, peers[0].ports.shared).used(); used != 200 {
		t.Errorf("stored node port bitmap holds %d ports, want 200", used)
	}
	if st.conflicts == 0 {
		t.Log("no write conflicted; the interleaving was not exercised this run")
	}
}

// The repair pass adds what stored Services hold but the bitmap lacks, and
// frees a bit no Service holds only on the third pass that sees it so.
func TestRepairRebuildsAndFreesLeaksAfterThreePasses(t *testing.T) {
	ctx := context.Background()
	st := newMemStore()
	a := peerAllocators(t, st, 1)[0]
	leaked := &api.Service{Spec: api.ServiceSpec{ClusterIP: "10.96.9.9"}} // allocated, never stored
	if _, err := a.admitService(ctx, leaked, nil, false); err != nil {
		t.Fatal(err)
	}
	stored := []*api.Service{{ObjectMeta: api.ObjectMeta{Name: "old", Namespace: "default"},
		Spec: api.ServiceSpec{ClusterIP: "10.96.7.7", ClusterIPs: []string{"10.96.7.7"}}}}
	repair := newAllocatorRepair(a, func(context.Context) ([]*api.Service, error) { return stored, nil },
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	leakedOffset, _ := a.ips.offset(net.ParseIP("10.96.9.9"))
	storedOffset, _ := a.ips.offset(net.ParseIP("10.96.7.7"))
	for pass := 1; pass <= 3; pass++ {
		if err := repair.runOnce(ctx); err != nil {
			t.Fatal(err)
		}
		bits := storedBitmap(t, a.ips.shared)
		if !bits.has(storedOffset) {
			t.Errorf("pass %d: the stored service's address is not allocated", pass)
		}
		if want := pass < 3; bits.has(leakedOffset) != want {
			t.Errorf("pass %d: leaked address allocated=%v, want %v", pass, bits.has(leakedOffset), want)
		}
	}
	// The freed address can be taken again.
	again := &api.Service{Spec: api.ServiceSpec{ClusterIP: "10.96.9.9"}}
	if _, err := a.admitService(ctx, again, nil, false); err != nil {
		t.Errorf("reuse a freed leak: %v", err)
	}
}

// A leak that gets its Service before the third pass (a slow create) is
// never freed.
func TestRepairKeepsACreateInFlight(t *testing.T) {
	ctx := context.Background()
	a := peerAllocators(t, newMemStore(), 1)[0]
	svc := &api.Service{ObjectMeta: api.ObjectMeta{Name: "slow", Namespace: "default"}, Spec: api.ServiceSpec{ClusterIP: "10.96.3.3"}}
	if _, err := a.admitService(ctx, svc, nil, false); err != nil {
		t.Fatal(err)
	}
	var stored []*api.Service
	repair := newAllocatorRepair(a, func(context.Context) ([]*api.Service, error) { return stored, nil },
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	for pass := 1; pass <= 4; pass++ {
		if pass == 3 {
			stored = append(stored, svc) // the create's write lands
		}
		if err := repair.runOnce(ctx); err != nil {
			t.Fatal(err)
		}
	}
	offset, _ := a.ips.offset(net.ParseIP("10.96.3.3"))
	if !storedBitmap(t, a.ips.shared).has(offset) {
		t.Error("the repair pass freed the address of a Service whose create was in flight")
	}
}

// A failed read of the bitmap fails the repair pass: it must not be taken
// for an empty bitmap, which the pass would overwrite with one rebuilt from
// the stored Services alone, freeing the value of a create in flight. A
// bitmap of another range is replaced.
func TestRepairFailsOnAFailedRead(t *testing.T) {
	ctx := context.Background()
	st := newMemStore()
	a := peerAllocators(t, st, 1)[0]
	svc := &api.Service{ObjectMeta: api.ObjectMeta{Name: "slow", Namespace: "default"}, Spec: api.ServiceSpec{ClusterIP: "10.96.3.3"}}
	if _, err := a.admitService(ctx, svc, nil, false); err != nil {
		t.Fatal(err)
	}
	repair := newAllocatorRepair(a, func(context.Context) ([]*api.Service, error) { return nil, nil },
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	st.failGets = 1
	if err := repair.runOnce(ctx); err == nil {
		t.Error("a repair pass whose read failed reported success")
	}
	offset, _ := a.ips.offset(net.ParseIP("10.96.3.3"))
	if !storedBitmap(t, a.ips.shared).has(offset) {
		t.Fatal("the repair pass cleared an allocation after a failed read")
	}

	// A bitmap of another range is rebuilt (here: from no Services).
	foreign := newRangeAllocation(st, serviceIPRangeKey, "10.0.0.0/24", 254, 16)
	value, err := foreign.encode(newAllocationBitmap(254))
	if err != nil {
		t.Fatal(err)
	}
	kv, err := st.Get(ctx, serviceIPRangeKey)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Update(ctx, serviceIPRangeKey, value, kv.ModRevision); err != nil {
		t.Fatal(err)
	}
	if err := repair.runOnce(ctx); err != nil {
		t.Fatalf("repair over another range's bitmap: %v", err)
	}
	if bits := storedBitmap(t, a.ips.shared); bits.used() != 0 {
		t.Errorf("rebuilt bitmap holds %d values, want 0", bits.used())
	}
}

// Random picks stay out of the static band while the rest of the range
// has room, and use it once it has not.
func TestRandomPicksLeaveTheStaticBand(t *testing.T) {
	if got := newNodePortRange(nil).shared.staticBand; got != 86 {
		t.Errorf("node port static band = %d, want upstream's 86 (30000-30085)", got)
	}
	if got := newServiceIPRange(nil).shared.staticBand; got != 256 {
		t.Errorf("ClusterIP static band = %d, want upstream's 256", got)
	}
	bits := newAllocationBitmap(64) // band of 16
	for i := 0; i < 48; i++ {
		offset, ok := bits.randomFree(16)
		if !ok || offset < 16 {
			t.Fatalf("pick %d: offset %d (ok %v) while offsets 16-63 had room", i, offset, ok)
		}
		bits.set(offset)
	}
	for i := 0; i < 16; i++ {
		offset, ok := bits.randomFree(16)
		if !ok || offset >= 16 {
			t.Fatalf("pick %d in the band: offset %d (ok %v)", i, offset, ok)
		}
		bits.set(offset)
	}
	if _, ok := bits.randomFree(16); ok {
		t.Error("a full range gave an offset")
	}
}
