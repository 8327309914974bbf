//go:build !kplane_broken_watchcache

package cache

// skipLiveEvent reports whether apply should leave an event undelivered to
// the watchers that would get it live. It never does: only the
// kplane_broken_watchcache build (broken_on.go) breaks that promise, to
// prove that the robustness checker (test/robustness) notices.
func skipLiveEvent() bool { return false }
