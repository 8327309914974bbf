package token

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/clock"
)

// maxTokenAge is how long a token is reused at most, whatever its
// lifetime: upstream's maxTTL, 24 h.
const maxTokenAge = 24 * time.Hour

// cleanupPeriod is how often expired tokens are swept: upstream's gcPeriod,
// 1 min. kplane sweeps while answering a request at most once per period
// instead of in a goroutine of its own, so an idle manager holds no timer.
const cleanupPeriod = time.Minute

// refreshAtPercent is the share of a token's lifetime after which it is
// replaced: upstream refreshes once 80 % has passed, leaving the pod a
// fifth of the lifetime to pick up the new file.
const refreshAtPercent = 80

// Requester asks the apiserver for a ServiceAccount token: the
// TokenRequest subresource through a *client.Client, or a fake in tests.
type Requester interface {
	// CreateToken creates req for the ServiceAccount namespace/name and
	// returns the answer, whose status holds the token and its expiry.
	CreateToken(ctx context.Context, namespace, name string, req *api.TokenRequest) (*api.TokenRequest, error)
}

// Manager caches and refreshes ServiceAccount tokens. It is safe for
// concurrent use.
type Manager struct {
	requester Requester
	clock     clock.Clock

	mu sync.Mutex
	// tokens holds the last answer per question (see cacheKey); every
	// entry has a non-nil Spec.ExpirationSeconds.
	tokens map[string]*api.TokenRequest
	// lastCleanup is when expired tokens were last swept.
	lastCleanup time.Time
}

// NewManager returns a manager asking requester, timed by clk (nil: the
// real clock).
func NewManager(requester Requester, clk clock.Clock) *Manager {
	if clk == nil {
		clk = clock.Real{}
	}
	return &Manager{requester: requester, clock: clk, tokens: map[string]*api.TokenRequest{}}
}

// PodToken returns a token of the pod's ServiceAccount bound to the pod,
// for audience (empty: the apiserver's own) valid for expirationSeconds.
func (m *Manager) PodToken(ctx context.Context, pod *api.Pod, audience string, expirationSeconds int64) (string, error) {
	sa := pod.Spec.ServiceAccountName
	if sa == "" {
		sa = "default"
	}
	var audiences []string
	if audience != "" {
		audiences = []string{audience}
	}
	tr, err := m.Token(ctx, pod.Namespace, sa, &api.TokenRequest{Spec: api.TokenRequestSpec{
		Audiences:         audiences,
		ExpirationSeconds: &expirationSeconds,
		BoundObjectRef:    &api.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: pod.Name, UID: string(pod.UID)},
	}})
	if err != nil {
		return "", err
	}
	return tr.Status.Token, nil
}

// Token returns a token for req of the ServiceAccount namespace/name,
// from the cache while it needs no refresh, else from the apiserver.
// When the apiserver fails, a cached token that has not expired yet is
// returned instead, as upstream does.
func (m *Manager) Token(ctx context.Context, namespace, name string, req *api.TokenRequest) (*api.TokenRequest, error) {
	if req.Spec.ExpirationSeconds == nil {
		return nil, fmt.Errorf("token for %s/%s: expirationSeconds is required", namespace, name)
	}
	key := cacheKey(namespace, name, req)
	now := m.clock.Now()
	m.mu.Lock()
	if now.Sub(m.lastCleanup) >= cleanupPeriod {
		m.cleanupLocked(now)
	}
	cached, found := m.tokens[key]
	m.mu.Unlock()
	if found && !needsRefresh(cached, now) {
		return cached, nil
	}
	req.TypeMeta = api.TypeMeta{Kind: "TokenRequest", APIVersion: "authentication.k8s.io/v1"}
	fresh, err := m.requester.CreateToken(ctx, namespace, name, req)
	if err != nil {
		if found && now.Before(cached.Status.ExpirationTimestamp.Time) {
			return cached, nil
		}
		return nil, fmt.Errorf("request token for ServiceAccount %s/%s: %w", namespace, name, err)
	}
	if fresh.Status.Token == "" || fresh.Status.ExpirationTimestamp.IsZero() {
		return nil, fmt.Errorf("request token for ServiceAccount %s/%s: the answer holds no token", namespace, name)
	}
	// The cache's refresh arithmetic needs the lifetime asked for even if
	// the apiserver's answer omits the spec.
	fresh.Spec.ExpirationSeconds = req.Spec.ExpirationSeconds
	fresh.Spec.BoundObjectRef = req.Spec.BoundObjectRef
	m.mu.Lock()
	m.tokens[key] = fresh
	m.mu.Unlock()
	return fresh, nil
}

// needsRefresh reports whether a cached token should be replaced at now:
// once 80 % of its lifetime has passed, or it is 24 h old.
func needsRefresh(tr *api.TokenRequest, now time.Time) bool {
	expires := tr.Status.ExpirationTimestamp.Time
	lifetime := time.Duration(*tr.Spec.ExpirationSeconds) * time.Second
	issued := expires.Add(-lifetime)
	if !now.Before(issued.Add(maxTokenAge)) {
		return true
	}
	return !now.Before(issued.Add(lifetime * refreshAtPercent / 100))
}

// Forget drops the tokens bound to the pod with uid: the pod is gone, and
// the apiserver would refuse them anyway.
func (m *Manager) Forget(uid string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for key, tr := range m.tokens {
		if ref := tr.Spec.BoundObjectRef; ref != nil && ref.UID == uid {
			delete(m.tokens, key)
		}
	}
}

// Cleanup drops the tokens that have expired.
func (m *Manager) Cleanup() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.cleanupLocked(m.clock.Now())
}

// cleanupLocked drops the tokens expired at now; m.mu is held.
func (m *Manager) cleanupLocked(now time.Time) {
	m.lastCleanup = now
	for key, tr := range m.tokens {
		if !now.Before(tr.Status.ExpirationTimestamp.Time) {
			delete(m.tokens, key)
		}
	}
}

// Len is how many tokens the cache holds.
func (m *Manager) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.tokens)
}

// cacheKey names one question: the ServiceAccount, audiences, lifetime
// and bound object, as upstream's keyFunc.
func cacheKey(namespace, name string, req *api.TokenRequest) string {
	audiences := slices.Clone(req.Spec.Audiences)
	slices.Sort(audiences)
	var bound string
	if ref := req.Spec.BoundObjectRef; ref != nil {
		bound = ref.Kind + "/" + ref.Name + "/" + ref.UID
	}
	return fmt.Sprintf("%s/%s|%s|%d|%s", namespace, name, strings.Join(audiences, ","), *req.Spec.ExpirationSeconds, bound)
}
