// Package browser tests `ctl ui` in a real browser: headless Chromium from
// Debian's package, driven by playwright-core (npm, pinned in
// package-lock.json; `npm ci` here installs it), against a `ctl up`
// cluster. The Go test starts the cluster and `ctl ui`, then runs the node
// scripts beside it.
//
// Without chromium or node_modules the tests skip, saying why; with
// KPLANE_REQUIRE_BROWSER=1 (as .ci/run sets, after installing both) they
// fail instead. Screenshots are test artifacts: keep them with
//
//	go test ./test/browser -run TestUI -artifacts -outputdir /tmp/kplane-ui
package browser
