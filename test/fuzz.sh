#!/usr/bin/env bash
# Runs every fuzz target in the repository, one `go test -fuzz` per target
# (go test fuzzes one target per package run), each for FUZZTIME.
#
#   test/fuzz.sh            run them all (what `make fuzz` does)
#   test/fuzz.sh -list      print the targets, one "package Target" a line
#   FUZZ='Watch|Query' test/fuzz.sh
#                           only the targets whose name matches the regex
#   FUZZTIME=5m FUZZ='^FuzzSplitYAML$' test/fuzz.sh
#                           one target, longer
#
# Targets are found, not listed by hand: every `func FuzzX(f *testing.F)`
# in a _test.go file is one, so a new target runs without editing this file.
# A failing input is written by go test to PKG/testdata/fuzz/FuzzX/; keep it
# there with the fix, and the plain `go test` replays it from then on.
# docs/fuzzing.md says what each target feeds and checks.
set -euo pipefail

GO=${GO:-go}
FUZZTIME=${FUZZTIME:-20s}
FUZZ=${FUZZ:-.}
cd "$(dirname "$0")/.."

# targets prints "./pkg/dir FuzzName" for every fuzz target, sorted.
targets() {
	grep -rEo --include='*_test.go' --exclude-dir=.git --exclude-dir=testdata \
		'^func Fuzz[A-Za-z0-9_]*\(' . |
		sed -E 's|^(.*)/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*)\($|\1 \2|' |
		sort
}

# count_files prints how many files dir holds (0 when it does not exist).
count_files() {
	if [[ -d $1 ]]; then
		find "$1" -type f | wc -l
	else
		echo 0
	fi
}

if [[ ${1:-} == -list ]]; then
	targets
	exit 0
fi

summary=()
failed=0
flaked=0
matched=0
while read -r pkg name; do
	[[ $name =~ $FUZZ ]] || continue
	matched=1
	echo "=== $name in $pkg for $FUZZTIME"
	log=$(mktemp)
	corpus="$pkg/testdata/fuzz/$name"
	before=$(count_files "$corpus")
	if $GO test -run '^$' -fuzz "^${name}\$" -fuzztime "$FUZZTIME" "$pkg" 2>&1 | tee "$log"; then
		result=ok
	elif [[ $(count_files "$corpus") == "$before" ]] &&
		tail -4 "$log" | grep -q '^    context deadline exceeded$'; then
		# Go's fuzz coordinator can fail a run as -fuzztime ends, without
		# a failing input (go.dev/issue/75804, fixed in Go 1.27): the
		# budget was spent and nothing was found.
		result=ok*
		flaked=1
	else
		result=FAIL
		failed=1
	fi
	# go test's last progress line: "fuzz: elapsed: 20s, execs: 123 (6/sec), …"
	execs=$(grep -Eo 'execs: [0-9]+' "$log" | tail -1 | cut -d' ' -f2 || true)
	rm -f "$log"
	summary+=("$(printf '%-4s %-36s %-28s %10s execs' "$result" "$pkg" "$name" "${execs:-?}")")
done < <(targets)

if ((!matched)); then
	# A misspelt FUZZ would otherwise pass having fuzzed nothing.
	echo "no fuzz target matches $FUZZ" >&2
	exit 1
fi

echo
echo "fuzz summary (FUZZTIME=$FUZZTIME each):"
printf '%s\n' "${summary[@]}"
if ((flaked)); then
	echo "ok*: go test ended with \"context deadline exceeded\" as the budget ran out and wrote no failing input (go.dev/issue/75804)"
fi
exit $failed
