package auth

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

var hexToken = regexp.MustCompile(`^[0-9a-f]{64}$`)

func mustEnsureTokens(t *testing.T, dir string) *TokenFile {
	t.Helper()
	tf, err := EnsureTokens(dir)
	if err != nil {
		t.Fatalf("EnsureTokens: %v", err)
	}
	return tf
}

func TestEnsureTokensCreatesBuiltinUsers(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	tf := mustEnsureTokens(t, dir)

	info, err := os.Stat(tf.Path())
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Errorf("tokens.csv mode = %o, want 600", perm)
	}
	if tf.Path() != filepath.Join(dir, "tokens.csv") {
		t.Errorf("Path() = %s", tf.Path())
	}

	seen := map[string]string{}
	for _, u := range BuiltinUsers() {
		token, ok := tf.TokenFor(u.Name)
		if !ok {
			t.Fatalf("no token for %s", u.Name)
		}
		if !hexToken.MatchString(token) {
			t.Errorf("token for %s = %q, want 64 hex characters", u.Name, token)
		}
		if other, dup := seen[token]; dup {
			t.Errorf("%s and %s share a token", u.Name, other)
		}
		seen[token] = u.Name
	}

	// The file must be in upstream's format, admin line with its group.
	data, err := os.ReadFile(tf.Path())
	if err != nil {
		t.Fatal(err)
	}
	adminToken, _ := tf.TokenFor(AdminUserName)
	wantLine := adminToken + ",kubernetes-admin,kubernetes-admin,system:masters\n"
	if !strings.Contains(string(data), wantLine) {
		t.Errorf("tokens.csv lacks line %q; content:\n%s", wantLine, data)
	}
}

func TestEnsureTokensReusesFile(t *testing.T) {
	dir := t.TempDir()
	first := mustEnsureTokens(t, dir)
	nodeToken, err := first.EnsureUser(NodeUser("node-1"))
	if err != nil {
		t.Fatal(err)
	}

	second := mustEnsureTokens(t, dir)
	for _, name := range []string{AdminUserName, SchedulerUserName, "system:node:node-1"} {
		a, _ := first.TokenFor(name)
		b, ok := second.TokenFor(name)
		if !ok || a != b {
			t.Errorf("token for %s changed between starts: %q -> %q", name, a, b)
		}
	}
	user, ok := second.Authenticate(nodeToken)
	if !ok {
		t.Fatal("node token not accepted after reload")
	}
	want := User{Name: "system:node:node-1", Groups: []string{NodesGroup}}
	if user.Name != want.Name || !slices.Equal(user.Groups, want.Groups) {
		t.Errorf("node user = %+v, want %+v", user, want)
	}
}

func TestEnsureUserIsIdempotent(t *testing.T) {
	tf := mustEnsureTokens(t, t.TempDir())
	a, err := tf.EnsureUser(NodeUser("n"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := tf.EnsureUser(User{Name: "system:node:n", Groups: []string{"other"}})
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Errorf("second EnsureUser gave a new token")
	}
	if u, _ := tf.Authenticate(a); u.InGroup("other") {
		t.Errorf("second EnsureUser changed the groups: %v", u.Groups)
	}
	if _, err := tf.EnsureUser(User{}); err == nil {
		t.Error("EnsureUser with an empty name succeeded")
	}
}

func TestAuthenticate(t *testing.T) {
	tf := mustEnsureTokens(t, t.TempDir())
	admin, _ := tf.TokenFor(AdminUserName)
	scheduler, _ := tf.TokenFor(SchedulerUserName)

	tests := []struct {
		name       string
		token      string
		wantOK     bool
		wantName   string
		wantGroups []string
	}{
		{"admin", admin, true, AdminUserName, []string{MastersGroup}},
		{"scheduler", scheduler, true, SchedulerUserName, nil},
		{"empty", "", false, "", nil},
		{"unknown", strings.Repeat("0", 64), false, "", nil},
		{"prefix of a real token", admin[:63], false, "", nil},
		{"real token plus a character", admin + "0", false, "", nil},
		{"upper-cased token", strings.ToUpper(admin), false, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			user, ok := tf.Authenticate(tt.token)
			if ok != tt.wantOK {
				t.Fatalf("ok = %v, want %v", ok, tt.wantOK)
			}
			if user.Name != tt.wantName || !slices.Equal(user.Groups, tt.wantGroups) {
				t.Errorf("user = %+v, want %s %v", user, tt.wantName, tt.wantGroups)
			}
		})
	}

	// The returned groups are a copy: changing them must not change the
	// next answer.
	u, _ := tf.Authenticate(admin)
	u.Groups[0] = "changed"
	if u2, _ := tf.Authenticate(admin); u2.Groups[0] != MastersGroup {
		t.Errorf("Authenticate returned shared state: groups now %v", u2.Groups)
	}
}

// TestParseUpstreamFormat feeds hand-written files, as a user might copy
// them from the Kubernetes documentation, to EnsureTokens.
func TestParseUpstreamFormat(t *testing.T) {
	tests := []struct {
		name    string
		content string
		wantErr bool
		// check maps token -> wanted user; "" name means "must not authenticate".
		check map[string]User
	}{
		{
			name:    "quoted group list",
			content: "t1,alice,uid1,\"dev,ops\"\n",
			check:   map[string]User{"t1": {Name: "alice", Groups: []string{"dev", "ops"}}},
		},
		{
			name:    "three columns, no groups",
			content: "t2,bob,uid2\n",
			check:   map[string]User{"t2": {Name: "bob"}},
		},
		{
			name:    "empty token is skipped",
			content: ",carol,uid3\nt4,dave,uid4\n",
			check: map[string]User{
				"":   {},
				"t4": {Name: "dave"},
			},
		},
		{
			name:    "duplicate token: the later line wins",
			content: "t5,erin,uid5\nt5,frank,uid6\n",
			check:   map[string]User{"t5": {Name: "frank"}},
		},
		{
			name:    "too few columns",
			content: "t6,grace\n",
			wantErr: true,
		},
		{
			name:    "unbalanced quote",
			content: "t7,heidi,uid7,\"dev\n",
			wantErr: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, TokensFileName)
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			tf, err := EnsureTokens(dir)
			if tt.wantErr {
				if err == nil {
					t.Fatal("EnsureTokens accepted a malformed file")
				}
				return
			}
			if err != nil {
				t.Fatalf("EnsureTokens: %v", err)
			}
			checkTokens(t, tf, tt.check)
			// Built-in users are added to a hand-written file, and the
			// user's own lines survive that rewrite.
			if _, ok := tf.TokenFor(AdminUserName); !ok {
				t.Error("admin was not added to an existing file")
			}
			checkTokens(t, mustEnsureTokens(t, dir), tt.check)
		})
	}
}

func checkTokens(t *testing.T, tf *TokenFile, check map[string]User) {
	t.Helper()
	for token, want := range check {
		got, ok := tf.Authenticate(token)
		if want.Name == "" {
			if ok {
				t.Errorf("token %q authenticated as %+v", token, got)
			}
			continue
		}
		if !ok || got.Name != want.Name || !slices.Equal(got.Groups, want.Groups) {
			t.Errorf("token %q: got %+v (ok=%v), want %+v", token, got, ok, want)
		}
	}
}

// TestConcurrentUse adds nodes while other goroutines authenticate, for the
// race detector, and checks every node ends up in the file.
func TestConcurrentUse(t *testing.T) {
	dir := t.TempDir()
	tf := mustEnsureTokens(t, dir)
	admin, _ := tf.TokenFor(AdminUserName)

	const nodes = 20
	tokens := make([]string, nodes)
	var wg sync.WaitGroup
	for i := range nodes {
		wg.Go(func() {
			token, err := tf.EnsureUser(NodeUser(fmt.Sprintf("node-%d", i)))
			if err != nil {
				t.Error(err)
			}
			tokens[i] = token
		})
		wg.Go(func() {
			if _, ok := tf.Authenticate(admin); !ok {
				t.Error("admin token rejected during concurrent writes")
			}
		})
	}
	wg.Wait()

	reloaded := mustEnsureTokens(t, dir)
	for i, token := range tokens {
		u, ok := reloaded.Authenticate(token)
		if want := fmt.Sprintf("system:node:node-%d", i); !ok || u.Name != want {
			t.Errorf("node %d: reloaded file authenticates %+v (ok=%v), want %s", i, u, ok, want)
		}
	}
}

// TestConcurrentFirstStartsShareTokens starts several "processes" on one
// fresh data dir: they must all end up with the same admin token.
func TestConcurrentFirstStartsShareTokens(t *testing.T) {
	dir := t.TempDir()
	const n = 8
	admins := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			tf, err := EnsureTokens(dir)
			if err != nil {
				t.Error(err)
				return
			}
			admins[i], _ = tf.TokenFor(AdminUserName)
		})
	}
	wg.Wait()
	for i := 1; i < n; i++ {
		if admins[i] != admins[0] {
			t.Fatalf("start %d got admin token %q, start 0 got %q", i, admins[i], admins[0])
		}
	}
}

// SetGroups rewrites one user's groups and keeps its token; an unknown user
// is an error, and setting the same groups writes nothing.
func TestTokenFileSetGroups(t *testing.T) {
	dir := t.TempDir()
	tf, err := EnsureTokens(dir)
	if err != nil {
		t.Fatal(err)
	}
	token, err := tf.EnsureUser(User{Name: "net", Groups: []string{MastersGroup}})
	if err != nil {
		t.Fatal(err)
	}
	if changed, err := tf.SetGroups("net", nil); err != nil || !changed {
		t.Fatalf("SetGroups(net, nil) = %v, %v; want a change", changed, err)
	}
	if changed, err := tf.SetGroups("net", nil); err != nil || changed {
		t.Errorf("SetGroups again = %v, %v; want no change", changed, err)
	}
	if _, err := tf.SetGroups("nobody", nil); err == nil {
		t.Error("SetGroups of an unknown user succeeded")
	}
	again, err := EnsureTokens(dir)
	if err != nil {
		t.Fatal(err)
	}
	if u, ok := again.Authenticate(token); !ok || slices.Contains(u.Groups, MastersGroup) {
		t.Errorf("after reload the token authenticates as %+v (ok %v); want no %s", u, ok, MastersGroup)
	}
}
