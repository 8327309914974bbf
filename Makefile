# kplane — build, test and benchmark.
#
#   make up      build, then start the local cluster in ./.kplane (Ctrl-C stops it)
#   make build   every binary into bin/
#   make test    vet, then all tests with the race detector (what CI runs)
#   make bench   the benchmarks; the report goes to bench/report.txt, then issue 18's target table
#   make bench-targets  only the benchmarks of that table, 5 runs each, then the table
#   make bench-scale  1 000 hollow nodes, 30 000 then 100 000 pods (bench/scale-report.txt)
#   make test-ecosystem  controller-runtime and Helm (a separate Go module, test/ecosystem) against a cluster
#   make bench-ui  issue 20's page with 1 000 pods on 100 nodes, in headless Chromium (3 runs)
#   make bench-events  a 5 000-pod burst of Scheduled events, each kept (the recorder alone, then the real scheduler)
#   make fuzz    every fuzz target, FUZZTIME (20s) each
#   make surge   50 rolling updates under CPU contention, checking maxSurge at every pod event
#   make robustness  100 000 operations under every fault kind, checked (docs/robustness.md)
#   make chaos   10 runs of the chaos test: rollouts while components are killed (docs/chaos.md)

GO      ?= go
BIN     := bin
PKGS    := ./...

.PHONY: up build test test-docs-sequence vet bench bench-ui bench-events fuzz surge robustness chaos clean bench-scale bench-targets test-ecosystem

up: build
	$(BIN)/ctl up

# Static binaries without symbol tables: no libc mappings per process, and
# W2 measured 26 MiB less summed RSS over the 13 processes of ctl up (docs/performance.md, issue 18).
build:
	@mkdir -p $(BIN)
	CGO_ENABLED=0 $(GO) build -ldflags='-s -w' -o $(BIN)/ ./cmd/...

vet:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)

# A 5 000-pod burst of Scheduled events, each kept (issue 18).
bench-events:
	$(GO) test -run 'TestBurstKeepsOneScheduledEventPerPod' -count 1 -v ./pkg/events/ -args -burst-pods 5000
	$(GO) test -run 'TestSchedulerBurstKeepsOneScheduledEventPerPod' -count 1 -v ./pkg/scheduler/ -args -scheduler-burst-pods 5000

# TestDocsInSequence (every walkthrough again, one after another on one
# cluster: five to seven minutes of test/e2e's twenty on two cores) has its
# own target, test-docs-sequence, which CI (.ci/run) runs after this one;
# TestDocs still runs every page, each on a fresh cluster, here.
#
# go test starts the packages' test binaries in the order it is given them,
# two at a time on two cores, so the longest go first (FIRST_TESTS): test/e2e
# alone runs about eighteen minutes, and started last, after every pkg/
# package, it ended the run some eight minutes later than it had to.
FIRST_TESTS := ./test/e2e ./test/browser ./pkg/apiserver ./test/robustness
test: vet build
	$(GO) test -race -count=1 -timeout 35m -skip '^TestDocsInSequence$$' $(FIRST_TESTS) $(PKGS)

# The walkthroughs read on, on one cluster (see test above).
test-docs-sequence: build
	$(GO) test -race -count=1 -timeout 20m -run '^TestDocsInSequence$$' ./test/e2e

# Issue 19's ecosystem judges, from their own Go module (test/ecosystem) so
# that controller-runtime and client-go never enter kplane's: a
# controller-runtime manager against a `ctl up` cluster of the binaries just
# built, then the same manager on a CustomResourceDefinition (Guestbook), and
# Helm installing a chart with a crds/ directory (helm on PATH or in
# KPLANE_HELM: `.ci/build-helm.sh` builds one). Not part of `make test`,
# whose run it would lengthen by the cold build of client-go and
# controller-runtime (about 9 minutes on two busy cores); CI (.ci/run) runs
# it after `make test`.
test-ecosystem: build
	cd test/ecosystem && KPLANE_BIN_DIR=$(CURDIR)/$(BIN) $(GO) test -count=1 -timeout 20m ./...

# Each write/latency benchmark starts a fresh apiserver per run (-count 5:
# quote medians); the LIST benchmarks time 20 lists each. W6 runs with the
# debug journals off, on, and on with a trace following (issue 13's cost
# budget: within 5 % and 25 % of the first).
# The first line's W3 includes W3's separate-process shape (issue 18:
# bin/apiserver as a process, the 16 clients in a driver process of their
# own; BenchmarkW3Create{ConfigMaps,Pods}SeparateProcess).
# 'W7' runs both W7 shapes: the scheduler in the benchmark's process and as
# a process of its own (BenchmarkW7SchedulerSeparateProcesses).
bench: build
	$(GO) test -run 'TestBurstKeepsOneScheduledEventPerPod' -count 1 -v ./pkg/events/ -args -burst-pods 5000 | grep -E '^(---|ok|FAIL)' | tee bench/events-burst.txt
	$(GO) test -run '^$$' -bench 'W1|W3|W5|W7' -benchtime 1x -count 5 -timeout 30m ./bench/ | tee bench/report.txt
	$(GO) test -run '^$$' -bench 'W4' -benchtime 20x -count 1 -timeout 30m ./bench/ | tee -a bench/report.txt
	$(GO) test -run '^$$' -bench 'W6Deployment1000$$' -benchtime 1x -count 5 -timeout 30m ./bench/ | tee -a bench/report.txt
	$(GO) test -run '^$$' -bench 'W2IdleFootprint' -benchtime 1x -count 5 -timeout 30m ./bench/ | tee -a bench/report.txt
	$(GO) test -run '^$$' -bench 'W6Deployment1000Journal$$' -benchtime 1x -count 5 -timeout 30m ./bench/ | tee -a bench/report.txt
	$(GO) test -run '^$$' -bench 'W6Deployment1000JournalFollowed' -benchtime 1x -count 3 -timeout 30m ./bench/ | tee -a bench/report.txt
	$(GO) test -run '^$$' -bench 'W6Deployment1000RollingUpdate' -benchtime 1x -count 3 -timeout 30m ./bench/ | tee -a bench/report.txt
	$(GO) test -run '^$$' -bench 'PortForward' -benchtime 20x -count 3 ./pkg/streaming/ | tee -a bench/report.txt
	$(GO) test -run '^$$' -bench 'InformerEventThroughput' -benchtime 200000x -count 3 ./pkg/informer/ | tee -a bench/report.txt
	$(GO) test -run '^$$' -bench 'InformerMemoryPer10kPods' -benchtime 3x -count 1 ./pkg/informer/ | tee -a bench/report.txt
	$(GO) test -run '^$$' -bench 'InformerJournalCost' -benchtime 200000x -count 3 -benchmem ./pkg/informer/ | tee -a bench/report.txt
	$(GO) test -run '^$$' -bench 'DNSServiceQueries' -benchtime 100000x -count 5 ./pkg/dns/ | tee -a bench/report.txt
	$(GO) test -run '^$$' -bench '1000Services10Endpoints' -benchtime 5x -count 5 ./pkg/proxy/ | tee -a bench/report.txt
	$(GO) test -run '^$$' -bench 'ExecStdout' -benchtime 20x -count 3 ./pkg/kubelet/server/ | tee -a bench/report.txt
	$(GO) test -run '^$$' -bench 'ResourceMetrics110Pods' -benchtime 200x -count 3 -benchmem ./pkg/kubelet/server/ | tee -a bench/report.txt
	$(MAKE) bench-ui
	$(GO) run ./bench/summary bench/report.txt

# Issue 20's Done-when 4 (test/browser/bench_test.go; docs/performance.md):
# first render and Running-to-colour delay of `ctl ui` with 1 000 pods on
# 100 hollow nodes, in headless Chromium (needs chromium and
# test/browser/node_modules: cd test/browser && npm ci).
bench-ui: build
	KPLANE_REQUIRE_BROWSER=1 $(GO) test -run '^$$' -bench 'UI1000Pods' -benchtime 1x -count 3 -timeout 30m ./test/browser/ | tee -a bench/report.txt

# Issue 18's one-run report: the benchmarks of its targets (W2, W3 with
# in-process and separate-process clients, W5, W6, W7 in-process and as
# separate processes), 5 runs each, into bench/targets-report.txt, then the
# table of medians, [min–max] and PASS/MISS (bench/summary; a benchmark
# that did not run shows "not run"). docs/performance.md, "Issue 18 results".
TARGET_BENCHMARKS := ^Benchmark(W2IdleFootprint|W3CreateConfigMaps16Clients|W3CreateConfigMapsSeparateProcess|W5WatchLatency|W6Deployment1000|W7SchedulerPodsPerSecond|W7SchedulerSeparateProcesses)$$

bench-targets: build
	$(GO) test -run '^$$' -bench '$(TARGET_BENCHMARKS)' -benchtime 1x -count 5 -timeout 60m ./bench/ | tee bench/targets-report.txt
	$(GO) run ./bench/summary bench/targets-report.txt

# The scale run (bench/scale, build tag "scale"; docs/performance.md, "Issue
# 18: scale"): a `ctl up` control plane from bin/, 1 000 hollow nodes in 4
# kubelet processes, 30 000 pods at 100 pods/s (pod startup and mutating API
# p99 against upstream's SLOs), then 100 000 pods (RSS, LIST, relist, W7).
# About 20 minutes and up to ~10 GiB; never part of `make test`. The report
# goes to bench/scale-report.txt. Smaller runs: KPLANE_SCALE_NODES,
# _KUBELETS, _STARTUP_PODS, _TOTAL_PODS, _QPS, _W7_PODS, _TIMEOUT; another
# kubelet build to compare: KPLANE_SCALE_KUBELET=path.
bench-scale: build
	$(GO) test -tags scale -count=1 -v -run '^TestScale$$' -timeout 45m ./bench/scale/

# Every fuzz target in the repository (test/fuzz.sh finds them; `test/fuzz.sh
# -list` prints them), one `go test -fuzz` each, for FUZZTIME each:
# `make fuzz FUZZTIME=5m FUZZ=FuzzSplitYAML` runs one longer. What each
# target feeds and checks: docs/fuzzing.md.
FUZZTIME ?= 20s
FUZZ     ?=
fuzz:
	GO='$(GO)' FUZZTIME='$(FUZZTIME)' FUZZ='$(FUZZ)' test/fuzz.sh

# The robustness check at full size (docs/robustness.md): 100 000 operations
# against three bin/etcd members and bin/apiserver while every fault kind is
# injected; prints the report (operations, faults, anomalies). `make test`
# runs a 45-second version of the same test.
robustness: build
	KPLANE_ROBUSTNESS_OPERATIONS=100000 KPLANE_ROBUSTNESS_DURATION=30m \
	  $(GO) test -count=1 -v -run '^TestRobustness$$' -timeout 40m ./test/robustness/

# The chaos test (test/chaos, build tag "chaos") CHAOS_RUNS times in a row,
# stopping at the first failure. Each run starts its own `ctl up` cluster
# from bin/ and takes a few minutes; its whole log stays in
# bin/chaos/run-N.log (a failed run also keeps its components' logs in
# bin/chaos/run-N-logs), and its kills and SUMMARY line are printed here.
# -test.timeout stays above the sum of the test's own waits (about 29
# minutes at worst), so a slow run fails with its own message and its
# cleanup stops the cluster; the timeout's panic would skip the cleanup.
CHAOS_RUNS ?= 10

chaos: build
	@mkdir -p $(BIN)/chaos
	$(GO) test -c -tags chaos -o $(BIN)/chaos/chaos.test ./test/chaos/
	@for i in $$(seq 1 $(CHAOS_RUNS)); do \
	  echo "=== chaos run $$i of $(CHAOS_RUNS)"; \
	  CHAOS_RUN=$$i KPLANE_BIN_DIR=$(abspath $(BIN)) CHAOS_LOGS_DIR=$(abspath $(BIN))/chaos/run-$$i-logs $(BIN)/chaos/chaos.test -test.run '^TestChaosRollout$$' \
	    -test.count 1 -test.v -test.timeout 35m > $(BIN)/chaos/run-$$i.log 2>&1; rc=$$?; \
	  grep -E 'cluster up:|chaos: |invariant broken|SUMMARY' $(BIN)/chaos/run-$$i.log | sed -E 's/^ +[a-z_]+\.go:[0-9]+: //'; \
	  if [ $$rc -ne 0 ]; then \
	    echo "--- chaos run $$i FAILED (exit $$rc); the end of $(BIN)/chaos/run-$$i.log:"; tail -n 60 $(BIN)/chaos/run-$$i.log; exit 1; \
	  fi; \
	done; echo "chaos: $(CHAOS_RUNS) runs in a row passed"

clean:
	rm -rf $(BIN)

# Issue 17's rolling-update over-surge soak: 50 rollouts of 10 replicas at
# maxSurge 1 beside 2 busy loops per core, in-process and on a cluster of
# the real binaries, the pods without a deletionTimestamp checked against
# replicas+maxSurge at every pod event. `make test` runs 1 and 2 of them,
# with no busy loops (its other tests already load every core).
surge:
	KPLANE_SURGE_ROLLOUTS=50 KPLANE_SURGE_BUSY=$$((2 * $$(nproc))) $(GO) test -count=1 -timeout 30m -v \
	  -run '^TestRollingUpdateNeverExceedsMaxSurgeUnderCPUContention$$' ./pkg/controllers/deployment/
	KPLANE_SURGE_ROLLOUTS=50 KPLANE_SURGE_BUSY=$$((2 * $$(nproc))) $(GO) test -count=1 -timeout 60m -v \
	  -run '^TestControllersDeploymentSurgeUnderCPUContention$$' ./test/e2e/
