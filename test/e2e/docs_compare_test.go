package e2e

import (
	"regexp"
	"strings"
)

// This file compares the output a document shows with the output a command
// printed, by shape: the volatile parts of both are replaced by
// placeholders, whitespace runs are collapsed, and `...` stands for
// whatever the document leaves out. The rules are listed in
// docs/writing-docs.md.

// ellipsis is what a document writes for "anything here": as a whole line
// it matches any number of lines (none included), as a token any number of
// tokens of one line.
const ellipsis = "..."

// genAlphabet is the alphabet of generated name suffixes and of
// pod-template-hashes (upstream's utilrand alphabet: no vowels, no 0, 1, 3).
const genAlphabet = `bcdfghjklmnpqrstvwxz2456789`

// normalisers are applied in order to every line, expected and actual.
// Order matters: times before durations, UIDs before identities, IPs with
// ports before bare IPs.
var normalisers = []struct {
	re   *regexp.Regexp
	repl string
}{
	// RFC 3339 timestamps (creationTimestamp, renewTime, log time=…).
	{regexp.MustCompile(`\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?`), "<time>"},
	// kubectl describe's RFC 1123 timestamps ("Sun, 22 Nov 2026 03:11:49 +0000").
	{regexp.MustCompile(`(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{1,2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} [+-]\d{4}`), "<time>"},
	// UIDs, and the <hostname>_<uuid> identities of leader election.
	{regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`), "<uid>"},
	{regexp.MustCompile(`[A-Za-z0-9.-]+_<uid>`), "<identity>"},
	// An apiserver's identity Lease is named after a hash of its host
	// (apiserver-<26 base32 characters>).
	{regexp.MustCompile(`\bapiserver-[a-z2-7]{26}\b`), "apiserver-<id>"},
	// resourceVersions in YAML, JSON and trace lines.
	{regexp.MustCompile(`(resourceVersion"?:\s*)"?\d+"?`), "${1}<rv>"},
	{regexp.MustCompile(`\brv=\d+`), "rv=<rv>"},
	// kube-proxy's per-endpoint chains are named after a hash of the
	// endpoint's IP (iptables' KUBE-SEP-<16 base32>, nftables'
	// endpoint-<8 base32>-ns/svc/proto/port__<ip>/<port>, and affinity-
	// likewise; the IP after "__" is no word of its own).
	{regexp.MustCompile(`\bKUBE-SEP-[A-Z2-7]{16}\b`), "KUBE-SEP-<hash>"},
	{regexp.MustCompile(`\b(endpoint|affinity)-[A-Z2-7]{8}-([^\s_]+)__\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}/`), "${1}-<hash>-${2}__<ip>/"},
	// Loopback addresses carry ports picked at random (the apiserver's,
	// a metrics server's).
	{regexp.MustCompile(`(127\.0\.0\.1|localhost):\d+`), "<ip>:<port>"},
	// Pod, node and service IPs depend on which node a pod landed on and
	// on the allocator.
	{regexp.MustCompile(`\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b`), "<ip>"},
	// kube-proxy's endpoint chains are named after a hash of the endpoint's
	// address (KUBE-SEP-7QE66YRUUVCO6FRM), which depends on where the pod
	// landed; its Service chains (KUBE-SVC-…) hash only the Service's name,
	// and stay as they are.
	{regexp.MustCompile(`\bKUBE-SEP-[A-Z2-7]{16}\b`), "KUBE-SEP-<hash>"},
	// NodePorts are allocated at random from 30000-32767.
	{regexp.MustCompile(`:3\d{4}/(TCP|UDP|SCTP)`), ":<nodeport>/$1"},
	// Ages and durations: 3s, 2m18s, 6d3h, 457ms, 1.5s. Only as a word of
	// their own (after a space, a parenthesis or the line's start), a
	// value (took=9.5ms) or a trace line's offset (+0.021s): a generated
	// name suffix such as the "88d7s" of ng-rs-88d7s also reads as a
	// duration.
	{regexp.MustCompile(`(^|[\s(=+])(\d+(\.\d+)?(ms|µs|us|ns|s|m|h|d|y))+\b`), "${1}<age>"},
	{regexp.MustCompile(`<invalid>`), "<age>"},
}

var (
	// generatedSuffixRE is a generated suffix after a dash or an equals
	// sign: a pod's 5 random characters (ng-rs-7xq2v) or a
	// pod-template-hash (ng-dep-85fd959ddf, pod-template-hash=85fd959ddf).
	generatedSuffixRE = regexp.MustCompile(`([-=])[` + genAlphabet + `]{5,10}($|[^a-z0-9])`)
	// bareHashRE is a pod-template-hash standing alone (a YAML value).
	bareHashRE = regexp.MustCompile(`(^|[\s":])[` + genAlphabet + `]{8,10}($|[\s",])`)
)

// normaliseLine returns the tokens of one output line with the volatile
// parts replaced by placeholders.
func normaliseLine(line string) []string {
	for _, n := range normalisers {
		line = n.re.ReplaceAllString(line, n.repl)
	}
	// A match consumes the character after the suffix, which may start the
	// next suffix (ng-dep-85fd959ddf-62kcq): repeat until nothing changes.
	for range 4 {
		next := generatedSuffixRE.ReplaceAllString(line, "$1<gen>$2")
		next = bareHashRE.ReplaceAllString(next, "$1<gen>$2")
		if next == line {
			break
		}
		line = next
	}
	return strings.Fields(line)
}

// normaliseLines normalises every line.
func normaliseLines(lines []string) [][]string {
	out := make([][]string, len(lines))
	for i, l := range lines {
		out[i] = normaliseLine(l)
	}
	return out
}

// isEllipsisLine reports whether an expected line stands for any number of
// lines.
func isEllipsisLine(tokens []string) bool {
	return len(tokens) == 1 && (tokens[0] == ellipsis || tokens[0] == "…")
}

// tokensMatch reports whether an actual line's tokens fit an expected
// line's, where an expected `...` token matches any run of tokens.
func tokensMatch(expected, actual []string) bool {
	if len(expected) == 0 {
		return len(actual) == 0
	}
	if expected[0] == ellipsis || expected[0] == "…" {
		for k := 0; k <= len(actual); k++ {
			if tokensMatch(expected[1:], actual[k:]) {
				return true
			}
		}
		return false
	}
	return len(actual) > 0 && expected[0] == actual[0] && tokensMatch(expected[1:], actual[1:])
}

// outputMatches reports whether actual has the shape of expected, and if
// not, how many leading expected lines could be matched (for the failure
// message).
func outputMatches(expected, actual []string) (bool, int) {
	exp, act := normaliseLines(expected), normaliseLines(trimTrailingBlank(actual))
	// memo[i][j]: expected[i:] matches actual[j:].
	memo := make([][]int8, len(exp)+1)
	for i := range memo {
		memo[i] = make([]int8, len(act)+1)
	}
	var match func(i, j int) bool
	match = func(i, j int) bool {
		if memo[i][j] != 0 {
			return memo[i][j] > 0
		}
		var ok bool
		switch {
		case i == len(exp):
			ok = j == len(act)
		case isEllipsisLine(exp[i]):
			ok = match(i+1, j) || (j < len(act) && match(i, j+1))
		default:
			ok = j < len(act) && tokensMatch(exp[i], act[j]) && match(i+1, j+1)
		}
		memo[i][j] = -1
		if ok {
			memo[i][j] = 1
		}
		return ok
	}
	if match(0, 0) {
		return true, len(exp)
	}
	return false, matchedPrefix(exp, act)
}

// matchedPrefix is the number of expected lines that match some prefix of
// actual, to point a failure message at the first line that does not.
func matchedPrefix(exp, act [][]string) int {
	reach := map[int]bool{0: true} // actual positions reachable after exp[:i]
	for i, e := range exp {
		next := map[int]bool{}
		for j := range reach {
			if isEllipsisLine(e) {
				for k := j; k <= len(act); k++ {
					next[k] = true
				}
			} else if j < len(act) && tokensMatch(e, act[j]) {
				next[j+1] = true
			}
		}
		if len(next) == 0 {
			return i
		}
		reach = next
	}
	return len(exp)
}
