package store

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// freeTestPort asks the kernel for a free loopback port. A member's ports
// must be known before any member starts, because each is told its peers.
func freeTestPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// testMembers describes a three-member cluster in dir.
func testMembers(t *testing.T, dir string) []MemberConfig {
	t.Helper()
	var members []MemberConfig
	var initial []string
	for i := 1; i <= 3; i++ {
		name := fmt.Sprintf("etcd-%d", i)
		m := MemberConfig{
			Name:         name,
			DataDir:      filepath.Join(dir, name),
			ClientURL:    fmt.Sprintf("http://127.0.0.1:%d", freeTestPort(t)),
			PeerURL:      fmt.Sprintf("http://127.0.0.1:%d", freeTestPort(t)),
			ClusterToken: "member-test",
		}
		members = append(members, m)
		initial = append(initial, name+"="+m.PeerURL)
	}
	for i := range members {
		members[i].InitialCluster = strings.Join(initial, ",")
	}
	return members
}

// startMembers starts the members side by side (each waits for a quorum).
func startMembers(t *testing.T, configs []MemberConfig) []*Embedded {
	t.Helper()
	started := make([]*Embedded, len(configs))
	errs := make([]error, len(configs))
	var wg sync.WaitGroup
	for i, mc := range configs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()
			started[i], errs[i] = StartMember(ctx, mc)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("start %s: %v", configs[i].Name, err)
		}
		t.Cleanup(func() { _ = started[i].Close() })
		// A member may lose its leader, which only the gRPC path's
		// interceptor notices (WithRequireLeader): no in-process watches.
		if started[i].Store().inProcess != nil {
			t.Fatalf("%s watches in-process, want gRPC", configs[i].Name)
		}
	}
	return started
}

func TestMembersFormAClusterThatSurvivesALostMember(t *testing.T) {
	t.Parallel()
	configs := testMembers(t, t.TempDir())
	members := startMembers(t, configs)

	written := mustCreate(t, members[0].Store(), "/registry/configmaps/default/a", `{"kind":"ConfigMap"}`)
	got, err := members[2].Store().Get(testContext(t), written.Key)
	if err != nil || got.ModRevision != written.ModRevision {
		t.Fatalf("member 3 reads %+v, %v; want the write made through member 1 (revision %d)", got, err, written.ModRevision)
	}

	// One of three gone: the other two are still a quorum.
	if err := members[0].Close(); err != nil {
		t.Fatalf("stop member 1: %v", err)
	}
	later := mustCreate(t, members[1].Store(), "/registry/configmaps/default/b", `{"kind":"ConfigMap"}`)

	// A restarted member rejoins from its data dir and catches up.
	restarted := startMembers(t, configs[:1])[0]
	for _, key := range []string{written.Key, later.Key} {
		if _, err := restarted.Store().Get(testContext(t), key); err != nil {
			t.Errorf("restarted member 1 cannot read %s: %v", key, err)
		}
	}
}

func TestMemberConfigRefusesAnIncompleteMember(t *testing.T) {
	t.Parallel()
	good := MemberConfig{Name: "etcd-1", DataDir: t.TempDir(), ClientURL: "http://127.0.0.1:1", PeerURL: "http://127.0.0.1:2",
		InitialCluster: "etcd-1=http://127.0.0.1:2"}
	for name, change := range map[string]func(*MemberConfig){
		"no name":            func(m *MemberConfig) { m.Name = "" },
		"no data dir":        func(m *MemberConfig) { m.DataDir = "" },
		"bad client URL":     func(m *MemberConfig) { m.ClientURL = "127.0.0.1:1" },
		"bad peer URL":       func(m *MemberConfig) { m.PeerURL = "::" },
		"not in the cluster": func(m *MemberConfig) { m.InitialCluster = "etcd-2=http://127.0.0.1:2" },
	} {
		mc := good
		change(&mc)
		if _, err := memberConfig(mc); err == nil {
			t.Errorf("%s: memberConfig accepted %+v", name, mc)
		}
	}
	if _, err := memberConfig(good); err != nil {
		t.Errorf("memberConfig refused a complete member: %v", err)
	}
}
