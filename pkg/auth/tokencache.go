package auth

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"sync"
	"time"
)

// Token cache defaults, as kube-apiserver's --authentication-token-cache
// settings default them (pkg/kubeapiserver/options/authentication.go):
// a success is remembered for 10 s, a failure not at all.
const (
	DefaultTokenSuccessTTL = 10 * time.Second
	DefaultTokenFailureTTL = 0
	// DefaultTokenCacheSize bounds the entries kept; upstream's cache holds
	// 32 stripes of 128 (4 096).
	DefaultTokenCacheSize = 4096
)

// TokenCache remembers what bearer tokens authenticated as for a short
// while, so that a client sending the same token on every request pays
// the authenticators (an RSA signature check and object lookups for a
// ServiceAccount token, an etcd read for a bootstrap token) once per TTL
// rather than once per request. It mirrors upstream's cached token
// authenticator (staging/src/k8s.io/apiserver/pkg/authentication/token/
// cache/cached_token_authenticator.go):
//
//   - entries are keyed by an HMAC-SHA256 of the audiences asked for and
//     the token, under a random key made when the cache is, so the raw
//     token is never kept and a dump of the memory does not reveal it;
//   - a success is kept for SuccessTTL, a failure for FailureTTL (zero:
//     not kept), and never past the credential's own expiry
//     (TokenResult.ExpiresAt);
//   - what the authenticators would now decide differently is seen only
//     when the entry lapses: a token whose ServiceAccount, bound Secret or
//     Pod was just deleted keeps working for up to SuccessTTL, as it does
//     upstream.
//
// At most Size entries are kept; a full cache first drops expired ones,
// then an arbitrary one. The zero value is not usable: use NewTokenCache.
type TokenCache struct {
	successTTL time.Duration
	failureTTL time.Duration
	size       int
	now        func() time.Time

	// hmacs hands out HMACs keyed with the cache's random key.
	hmacs sync.Pool

	mu      sync.Mutex
	entries map[tokenKey]tokenEntry
}

// TokenCacheOptions configure a TokenCache.
type TokenCacheOptions struct {
	// SuccessTTL is how long a success is kept; zero keeps none.
	SuccessTTL time.Duration
	// FailureTTL is how long a failure is kept; zero keeps none.
	FailureTTL time.Duration
	// Size bounds the entries; zero is DefaultTokenCacheSize.
	Size int
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// tokenKey is the HMAC of a lookup: audiences and token.
type tokenKey [sha256.Size]byte

// tokenEntry is one remembered answer.
type tokenEntry struct {
	result  TokenResult
	ok      bool
	err     error
	expires time.Time
}

// NewTokenCache returns an empty cache with a fresh random HMAC key.
func NewTokenCache(opts TokenCacheOptions) *TokenCache {
	secret := make([]byte, 32)
	_, _ = rand.Read(secret) // crypto/rand.Read never fails (Go 1.24+)
	c := &TokenCache{
		successTTL: opts.SuccessTTL,
		failureTTL: opts.FailureTTL,
		size:       opts.Size,
		now:        opts.Now,
		entries:    map[tokenKey]tokenEntry{},
	}
	if c.size <= 0 {
		c.size = DefaultTokenCacheSize
	}
	if c.now == nil {
		c.now = time.Now
	}
	c.hmacs.New = func() any { return hmac.New(sha256.New, secret) }
	return c
}

// Authenticate answers from the cache, or asks authenticate and keeps its
// answer.
func (c *TokenCache) Authenticate(ctx context.Context, token string, audiences []string,
	authenticate func(ctx context.Context, token string, audiences []string) (TokenResult, bool, error),
) (TokenResult, bool, error) {
	key := c.key(token, audiences)
	now := c.now()
	c.mu.Lock()
	e, found := c.entries[key]
	c.mu.Unlock()
	if found && now.Before(e.expires) {
		return e.result, e.ok, e.err
	}
	result, ok, err := authenticate(ctx, token, audiences)
	if ctx.Err() == nil {
		c.remember(key, tokenEntry{result: result, ok: ok, err: err}, now)
	}
	return result, ok, err
}

// remember keeps e from now on for its TTL, capped by the credential's
// expiry; an answer with a zero TTL is not kept (nor, as Authenticate
// sees to, one given after the request's context ended).
func (c *TokenCache) remember(key tokenKey, e tokenEntry, now time.Time) {
	ttl := c.failureTTL
	if e.ok {
		ttl = c.successTTL
	}
	if ttl <= 0 {
		return
	}
	e.expires = now.Add(ttl)
	if e.ok && !e.result.ExpiresAt.IsZero() && e.result.ExpiresAt.Before(e.expires) {
		e.expires = e.result.ExpiresAt
	}
	if !now.Before(e.expires) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, present := c.entries[key]; !present && len(c.entries) >= c.size {
		c.evict(now)
	}
	c.entries[key] = e
}

// evict makes room for one entry: every expired entry goes, or else an
// arbitrary one. c.mu is held.
func (c *TokenCache) evict(now time.Time) {
	for k, e := range c.entries {
		if !now.Before(e.expires) {
			delete(c.entries, k)
		}
	}
	if len(c.entries) < c.size {
		return
	}
	for k := range c.entries {
		delete(c.entries, k)
		return
	}
}

// Len is the number of entries held, expired ones included.
func (c *TokenCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// key is the HMAC of the audiences and the token, each length-prefixed so
// that no two different lookups write the same bytes.
func (c *TokenCache) key(token string, audiences []string) tokenKey {
	h := c.hmacs.Get().(hash.Hash)
	defer c.hmacs.Put(h)
	h.Reset()
	var n [8]byte
	write := func(s string) {
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	binary.BigEndian.PutUint64(n[:], uint64(len(audiences)))
	h.Write(n[:])
	for _, a := range audiences {
		write(a)
	}
	write(token)
	var key tokenKey
	h.Sum(key[:0])
	return key
}
