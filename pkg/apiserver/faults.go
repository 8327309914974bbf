package apiserver

// This file is the apiserver's side of `ctl fault api-error`: for a while,
// requests of one resource and verb fail with a chosen status (or are held
// first), so a student can watch a controller's retries and back-off in
// `ctl queues` without breaking anything for real. Rules are installed
// through the debug API (faults_api.go); serveResource asks inject before
// dispatching each request.

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/apiserver/response"
	"kplane/pkg/auth"
	"kplane/pkg/clock"
	"kplane/pkg/debug"
)

// Bounds of a rule: long enough for any lesson, short enough that a
// forgotten rule cannot break a cluster for good.
const (
	maxFaultDuration = time.Hour
	maxFaultDelay    = 5 * time.Minute
)

// retryAfterSeconds is the Retry-After an injected 429 carries: one
// second, what upstream's max-in-flight filter asks of a rejected client.
const retryAfterSeconds = 1

// faultVerbs are the verbs a rule may name, as RBAC names them.
var faultVerbs = []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection", "*"}

// faultRule is an installed rule and what it matches, parsed once.
type faultRule struct {
	debug.APIErrorRule
	// plural, group and subresource are Resource taken apart; group is
	// "" when the rule did not name one (then it matches any group).
	plural, group, subresource string
}

// matches reports whether a request for the resource group/plural (and
// subresource) with verb falls under the rule, as an RBAC rule would
// match it: "pods" is not "pods/status".
func (r *faultRule) matches(group, plural, subresource, verb string) bool {
	return r.plural == plural && (r.group == "" || r.group == group) &&
		r.subresource == subresource && (r.Verb == "*" || r.Verb == verb)
}

// faultInjector holds the active rules. A request finds the first active
// rule that matches it; expired rules are dropped as they are met. Its
// methods are safe for concurrent use.
type faultInjector struct {
	clock   clock.Clock
	journal *debug.Journal

	// count mirrors len(rules), so the request path skips the lock while
	// no rule is installed (the usual case).
	count atomic.Int32

	mu     sync.Mutex
	rules  []*faultRule
	nextID int
	// cleared is closed (and replaced) by clear, releasing held requests.
	cleared chan struct{}
}

func newFaultInjector(clk clock.Clock, j *debug.Journal) *faultInjector {
	if clk == nil {
		clk = clock.Real{}
	}
	return &faultInjector{clock: clk, journal: j, cleared: make(chan struct{})}
}

// parseFaultResource takes "replicasets.apps/status" apart into plural,
// group and subresource.
func parseFaultResource(s string) (plural, group, subresource string, err error) {
	resource, subresource, _ := strings.Cut(s, "/")
	plural, group, _ = strings.Cut(resource, ".")
	if plural == "" || strings.Contains(subresource, "/") {
		return "", "", "", fmt.Errorf("resource %q: want a plural resource name, optionally with its group and a subresource (replicasets, replicasets.apps, pods/status)", s)
	}
	return plural, group, subresource, nil
}

// add validates rule, installs it and returns it with its ID and expiry.
func (f *faultInjector) add(rule debug.APIErrorRule) (debug.APIErrorRule, error) {
	plural, group, subresource, err := parseFaultResource(rule.Resource)
	if err != nil {
		return rule, err
	}
	var problems []string
	if !slices.Contains(faultVerbs, rule.Verb) {
		problems = append(problems, fmt.Sprintf("verb %q: want one of %s", rule.Verb, strings.Join(faultVerbs, ", ")))
	}
	switch rule.Code {
	case debug.FaultConflict, debug.FaultTooManyRequests, debug.FaultInternalError:
	case 0:
		if rule.Delay <= 0 {
			problems = append(problems, "a rule needs a code (409, 429 or 500), a delay, or both")
		}
	default:
		problems = append(problems, fmt.Sprintf("code %d: kplane injects 409 (Conflict), 429 (TooManyRequests) or 500 (InternalError)", rule.Code))
	}
	if rule.For <= 0 || rule.For > maxFaultDuration {
		problems = append(problems, fmt.Sprintf("for %v: want a duration above 0 and at most %v", rule.For, maxFaultDuration))
	}
	if rule.Delay < 0 || rule.Delay > maxFaultDelay {
		problems = append(problems, fmt.Sprintf("delay %v: want a duration from 0 to %v", rule.Delay, maxFaultDelay))
	}
	if len(problems) > 0 {
		return rule, errors.New(strings.Join(problems, "; "))
	}

	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextID++
	rule.ID, rule.Hits = f.nextID, 0
	rule.Expires = f.clock.Now().Add(rule.For)
	f.rules = append(f.rules, &faultRule{APIErrorRule: rule, plural: plural, group: group, subresource: subresource})
	f.count.Store(int32(len(f.rules)))
	return rule, nil
}

// active returns the rules that have not expired, oldest first.
func (f *faultInjector) active() []debug.APIErrorRule {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.activeLocked()
}

// activeLocked drops the expired rules and returns the others, oldest
// first; the caller holds mu.
func (f *faultInjector) activeLocked() []debug.APIErrorRule {
	f.dropExpiredLocked()
	out := make([]debug.APIErrorRule, 0, len(f.rules))
	for _, r := range f.rules {
		out = append(out, r.APIErrorRule)
	}
	return out
}

// clear removes every rule, releases the requests held by them, and
// returns the rules that were still active.
func (f *faultInjector) clear() []debug.APIErrorRule {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.activeLocked()
	f.rules = nil
	f.count.Store(0)
	close(f.cleared)
	f.cleared = make(chan struct{})
	return out
}

// match returns a copy of the first active rule matching the request, and
// counts the hit; ok is false when none does.
func (f *faultInjector) match(group, plural, subresource, verb string) (rule debug.APIErrorRule, released <-chan struct{}, ok bool) {
	if f.count.Load() == 0 {
		return rule, nil, false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.dropExpiredLocked()
	for _, r := range f.rules {
		if r.matches(group, plural, subresource, verb) {
			r.Hits++
			return r.APIErrorRule, f.cleared, true
		}
	}
	return rule, nil, false
}

// dropExpiredLocked forgets the rules whose time is up; the caller holds mu.
func (f *faultInjector) dropExpiredLocked() {
	now := f.clock.Now()
	f.rules = slices.DeleteFunc(f.rules, func(r *faultRule) bool { return !now.Before(r.Expires) })
	f.count.Store(int32(len(f.rules)))
}

// inject applies the first rule matching the request, if any: it holds the
// request for the rule's delay, then fails it with the rule's code. It
// returns true when it has answered the request (the caller must not),
// false when the request should be served as usual.
func (f *faultInjector) inject(w http.ResponseWriter, r *http.Request, info *requestInfo) bool {
	rule, released, ok := f.match(info.res.group, info.res.plural, info.subresource, info.verb)
	if !ok {
		return false
	}
	target := info.res.qualified().String()
	if info.subresource != "" {
		target += "/" + info.subresource
	}
	object := info.name
	if info.namespace != "" && object != "" {
		object = info.namespace + "/" + object
	}
	if rule.Delay > 0 {
		timer := f.clock.NewTimer(rule.Delay)
		defer timer.Stop()
		select {
		case <-timer.C():
		case <-released:
			// `ctl fault api-error --clear`: the rule is gone, so serve.
			return false
		case <-r.Context().Done():
			// The client gave up; nobody reads an answer.
			return true
		}
	}
	f.record(r, rule, info.verb, target, object)
	if rule.Code == 0 {
		return false
	}
	response.WriteError(w, injectedError(rule, info))
	return true
}

// injectedError is the Status a rule fails a request with: the one the
// real failure would carry, its message saying it is injected.
func injectedError(rule debug.APIErrorRule, info *requestInfo) *apierrors.StatusError {
	why := fmt.Sprintf("injected fault (rule %d of `ctl fault api-error`)", rule.ID)
	switch rule.Code {
	case debug.FaultConflict:
		return apierrors.NewConflict(info.res.qualified(), info.name, why)
	case debug.FaultTooManyRequests:
		return apierrors.NewTooManyRequests("Too many requests, please try again later: "+why, retryAfterSeconds)
	default:
		return apierrors.NewInternalError(errors.New(why))
	}
}

// record writes one injection into the journal as an event.
func (f *faultInjector) record(r *http.Request, rule debug.APIErrorRule, verb, target, object string) {
	if !f.journal.Enabled() {
		return
	}
	user, _ := auth.UserFrom(r.Context())
	what := fmt.Sprintf("failed with %d", rule.Code)
	switch {
	case rule.Code == 0:
		what = fmt.Sprintf("held for %v, then served", rule.Delay)
	case rule.Delay > 0:
		what = fmt.Sprintf("held for %v, then failed with %d", rule.Delay, rule.Code)
	}
	f.journal.Add(debug.Record{
		Type: debug.TypeEvent, Stage: "api-error", Actor: user.Name, Resource: target, Key: object,
		Message: fmt.Sprintf("fault injected (rule %d): %s %s by %s %s", rule.ID, verb, target, user.Name, what),
		Detail:  fmt.Sprintf("rule=%d code=%d delay=%v verb=%s", rule.ID, rule.Code, rule.Delay, verb),
	})
}
