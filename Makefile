# kplane — build, test and benchmark.
#
#   make build   every binary into bin/
#   make test    vet, then all tests with the race detector (what CI runs)
#   make bench   the benchmarks; the report goes to bench/report.txt
#   make fuzz    a short run of every fuzz target

GO      ?= go
BIN     := bin
PKGS    := ./...

.PHONY: build test vet bench fuzz clean

build:
	@mkdir -p $(BIN)
	$(GO) build -o $(BIN)/ ./cmd/...

vet:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)

test: vet build
	$(GO) test -race -count=1 -timeout 20m $(PKGS)

bench: build
	@mkdir -p bench
	$(GO) test -run '^$$' -bench . -benchtime 1x -count 5 -timeout 30m ./bench/ | tee bench/report.txt

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzInto -fuzztime 20s ./pkg/apiserver/decode/
	$(GO) test -run '^$$' -fuzz FuzzStrategicMerge -fuzztime 20s ./pkg/apiserver/patch/
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 20s ./pkg/api/labels/

clean:
	rm -rf $(BIN)
