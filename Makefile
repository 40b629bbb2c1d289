# kvenc — make targets. Every target installs what it needs: Go modules
# download by themselves; benchstat is run through `go run` at a pinned version.

GO        ?= go
FUZZTIME  ?= 30s
COUNT     ?= 10
BENCHTIME ?= 1s
BENCHSTAT := $(GO) run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da
OLD       ?= bench/out/old.txt
NEW       ?= bench/out/new.txt

.PHONY: all test vet fmt-check fuzz bench bench-go bench-compare cover

all: test

# test: what CI runs (.ci/run). gofmt, vet and the race-enabled tests of every
# module (the library, kvtikv on client-go's in-process TiKV mock, bench), with
# the invariants build tag on. Must stay under 10 minutes on 2 cores.
test: fmt-check vet
	$(GO) test -race -tags invariants -timeout 9m ./...
	@if [ -f kvtikv/go.mod ]; then cd kvtikv && $(GO) test -race -tags invariants -timeout 5m ./...; fi
	@if [ -f bench/go.mod ]; then cd bench && $(GO) test -race -tags invariants -timeout 9m ./...; fi
	@# The dbgen-based tests skip themselves under -race (dbgen's 300 MB text
	@# pool takes minutes there); they run here without it.
	@if [ -f bench/go.mod ]; then cd bench && $(GO) test -tags invariants -timeout 5m -run 'Lineitem' ./...; fi

fmt-check:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...
	@if [ -f kvtikv/go.mod ]; then cd kvtikv && $(GO) vet ./...; fi
	@if [ -f bench/go.mod ]; then cd bench && $(GO) vet ./...; fi

# fuzz: every Fuzz target in every package of the library module, FUZZTIME each.
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
	  dir=$$($(GO) list -f '{{.Dir}}' $$pkg); \
	  for t in $$(grep -ho '^func Fuzz[A-Za-z0-9_]*' $$dir/*_test.go 2>/dev/null | sed 's/^func //'); do \
	    echo "== $$pkg $$t ($(FUZZTIME))"; \
	    $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; \
	done

# bench: the main job. Runs the kvbench command (quick mode) when it exists,
# which rewrites bench/RESULTS.md and its plots in bench/docs; otherwise the
# library's Go benchmarks with a benchstat summary.
bench:
	@mkdir -p bench/out
	@if [ -d bench/cmd/kvbench ]; then \
	  cd bench && $(GO) run ./cmd/kvbench all -quick -out out -results RESULTS.md; \
	else \
	  $(MAKE) --no-print-directory bench-go; \
	fi

# bench-go: the library's microbenchmarks, COUNT runs each, summarised by benchstat.
bench-go:
	@mkdir -p bench/out
	$(GO) test -run '^$$' -bench 'Decode' -benchmem -count $(COUNT) -benchtime $(BENCHTIME) ./vlong/ | tee bench/out/vlong.txt
	$(BENCHSTAT) -col /dec bench/out/vlong.txt

# bench-compare: benchstat of two saved runs (OLD and NEW files of `go test -bench` output).
bench-compare:
	$(BENCHSTAT) $(OLD) $(NEW)

cover:
	$(GO) test -coverprofile=cover.out ./...
	$(GO) tool cover -func=cover.out | tail -1
