# arena — the two commands a new user needs are `make run` and `make test`.
GO ?= go
BIN := bin/arena

.PHONY: build install run test docs test-race test-examples test-python mypy-python bench-python test-slurm bench bench-scale lint fuzz clean

# The source revision goes into every results file (arena_version).
REVISION := $(shell git describe --always --dirty 2>/dev/null)
LDFLAGS := -X github.com/arena-sim/arena/sim.revision=$(REVISION)
PREFIX ?= $(HOME)/.local

build:
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/arena

# Installs arena into $(PREFIX)/bin (default ~/.local/bin; make install
# PREFIX=/usr/local as root), so 'arena' works from any directory.
install: build
	install -d $(PREFIX)/bin
	install -m 0755 $(BIN) $(PREFIX)/bin/arena
	@echo "installed $(PREFIX)/bin/arena; make sure $(PREFIX)/bin is on your PATH"

# The main job on embedded defaults: the Philly trace on the paper's 1,280-GPU
# cluster, every default policy, results written to results/.
run: build
	./$(BIN) simulate --out results

test:
	@command -v pdftotext >/dev/null || { [ "$$(id -u)" = 0 ] && echo "installing Debian's poppler-utils (pdftotext, for the PDF text test of plots)" && { apt-get install -y -qq poppler-utils >/dev/null 2>&1 || { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq poppler-utils >/dev/null 2>&1; }; }; } || echo "WARNING: pdftotext (poppler-utils) not found: the PDF text test of plots is SKIPPED"
	@command -v python3 >/dev/null || echo "WARNING: python3 not found: the Python example policies (examples/python, policy/exec tests) are SKIPPED"
	$(GO) vet ./...
	$(GO) test ./...
	$(MAKE) test-race
	$(MAKE) test-examples
	$(MAKE) test-python

# The race detector on the packages where goroutines meet: the engine, one
# policy, the profile-database cache shared by concurrent runs, and the
# sweep's worker pool, shards, resume, lock and merge (the rest of
# experiments/... under -race takes ~6 min here: its single-goroutine parity
# and golden runs are left to the plain pass above).
RACE_SWEEP_TESTS := TestShardsMergedEqualUnshardedSweep|TestResumeSkipsCompleteRunsAndRedoesBrokenOnes|TestSweepLocksOut|TestMergeCleansStaleTemporaries|TestRunTimeoutAbandonsLongRuns|TestCompareSweeps
test-race:
	$(GO) test -race ./sim ./policy/fcfs ./estimator
	$(GO) test -race -run '$(RACE_SWEEP_TESTS)' ./experiments/sweep

# The policy written outside the repository (its own Go module, built against
# this checkout by a replace): vet, conformance test, build, and a short run.
# -mod=mod lets its go.sum follow the repository's dependencies.
test-examples:
	cd examples/custom-policy && $(GO) vet -mod=mod ./... && $(GO) test -mod=mod ./... \
	  && $(GO) build -mod=mod -o $(CURDIR)/bin/arena-custom . \
	  && $(CURDIR)/bin/arena-custom simulate --trace testbed --cluster testbed-64 --policy 'fcfs,backfill(order=smallest)' --check >/dev/null \
	  && echo "examples/custom-policy: built and ran backfill"

# The Python client package (python/, arena_policy): installed offline with
# pip into a scratch directory and its unit tests run against the installed
# copy. The first of python3 and /usr/bin/python3 with pip, setuptools and
# wheel does it; when neither has them, Debian's python3-pip,
# python3-setuptools and python3-wheel are installed (apt-get, root or sudo).
PY_SCRATCH := $(CURDIR)/bin/python-pkg
test-python:
	@if ! command -v python3 >/dev/null; then echo "WARNING: python3 not found: the Python client's tests are SKIPPED"; exit 0; fi; \
	py=""; for p in python3 /usr/bin/python3; do \
	  if $$p -m pip --version >/dev/null 2>&1 && $$p -c 'import setuptools, wheel' >/dev/null 2>&1; then py=$$p; break; fi; \
	done; \
	if [ -z "$$py" ]; then \
	  echo "installing Debian's python3-pip, python3-setuptools and python3-wheel"; \
	  sudo=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	  $$sudo apt-get install -y -qq python3-pip python3-setuptools python3-wheel \
	    || { $$sudo apt-get update -qq && $$sudo apt-get install -y -qq python3-pip python3-setuptools python3-wheel; } || exit 1; \
	  py=/usr/bin/python3; \
	fi; \
	rm -rf $(PY_SCRATCH) && $$py -m pip install --quiet --no-deps --no-build-isolation --no-index --target $(PY_SCRATCH) ./python \
	  && rm -rf python/build python/arena_policy.egg-info \
	  && PYTHONPATH=$(PY_SCRATCH) $$py -c 'import arena_policy, sys; assert arena_policy.__file__.startswith(sys.argv[1]), arena_policy.__file__' $(PY_SCRATCH) \
	  && PYTHONPATH=$(PY_SCRATCH) $$py -m unittest discover -s python/tests \
	  && echo "python/: installed with $$py -m pip and tested" \
	  && $(MAKE) --no-print-directory mypy-python

# mypy --strict on the client package (it ships py.typed) and the examples
# that use it. Debian's mypy is installed when absent and we are root (or
# have sudo); otherwise the check is SKIPPED with a warning.
mypy-python:
	@mypy=""; for m in mypy "python3 -m mypy" "/usr/bin/python3 -m mypy"; do \
	  if $$m --version >/dev/null 2>&1; then mypy=$$m; break; fi; \
	done; \
	if [ -z "$$mypy" ]; then \
	  if [ "$$(id -u)" = 0 ]; then sudo=""; elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo=sudo; else sudo=none; fi; \
	  if [ "$$sudo" = none ]; then echo "WARNING: mypy not found and not root: the type check of python/ is SKIPPED"; exit 0; fi; \
	  echo "installing Debian's mypy"; \
	  $$sudo apt-get install -y -qq mypy || { $$sudo apt-get update -qq && $$sudo apt-get install -y -qq mypy; } || exit 1; \
	  mypy=mypy; \
	fi; \
	$$mypy --strict python/arena_policy && $$mypy --strict examples/python/fifo.py examples/python/sjf.py examples/python/carbon_wait.py \
	  && echo "python/: mypy --strict clean"

# A sweep on a real single-node Slurm cluster (Slurm, MUNGE, slurmdbd and
# MariaDB from Debian packages when absent; needs root): the emitted sbatch
# script, a cancelled and requeued task, the dependent merge job, equality
# with a local sweep, and sacct for a failing array. About 1–2 minutes.
# Then arena replay --on slurm on an emulated testbed-64 (32 slurmds): both
# modes, two policies, the deterministic option and a Ctrl-C, asserting
# identical placements and calibrated mean-JCT errors within stated bands
# (.ci/slurm-replay-test.sh; about 4 minutes).
test-slurm:
	bash .ci/slurm-test.sh
	bash .ci/slurm-replay-test.sh

# Benchmarks in the format benchstat reads: every benchmark BENCH_COUNT
# times, the output also saved to bench/<revision>.txt, so two commits compare
# with `go run golang.org/x/perf/cmd/benchstat@latest bench/A.txt bench/B.txt`.
BENCH_COUNT ?= 5
BENCH_OUT ?= bench/$(REVISION).txt
bench:
	@mkdir -p $(dir $(BENCH_OUT))
	$(GO) test -run '^$$' -bench . -benchtime 3x -count $(BENCH_COUNT) ./... > $(BENCH_OUT); s=$$?; cat $(BENCH_OUT); echo "saved $(BENCH_OUT)"; exit $$s

# The exec protocol's cost: Python FIFO against Go fcfs, whole process, best
# of BENCH_RUNS (3) interleaved, on built-in Philly and the 82k-job trace on
# 10,240 GPUs (BENCH_SCALE=0: Philly only); bench/exec-<revision>.txt.
bench-python:
	bash .ci/exec-bench.sh

# The scaling benchmark: per policy, run time against jobs at a fixed cluster
# (a longer trace at 2×, 4×, 8×, or a heavier one at 1×, 2×, 4×) and against
# GPUs at a fixed trace (1×, 2×, 4×), with the fitted exponents (about five
# minutes; a run is stopped at ARENA_SCALE_BUDGET, default 5m;
# ARENA_SCALE_POLICIES / ARENA_SCALE_AXES pick). Then BenchmarkScalingJobs
# (issue 38: 100k, 250k and 1M Philly jobs on paper-1280 scaled) and
# BenchmarkScalingTopology (issue 37: 100k, 250k and 1M Acme-Kalos jobs of up
# to 8,192 GPUs on h100-98k's tiers scaled, contention on; bench/scale-1m-topology.md);
# ARENA_SCALE_JOBS picks their sizes.
bench-scale:
	@mkdir -p bench
	ARENA_BENCH_SCALE=1 $(GO) test ./experiments/regress -run '^$$' -bench Scaling -benchtime 1x -timeout 8h > bench/scale-$(REVISION).txt; s=$$?; cat bench/scale-$(REVISION).txt; exit $$s

# The command-line reference in docs/cli/, generated from the cobra commands
# (cli.TestReferenceCurrent fails when it is stale).
docs:
	$(GO) run ./cmd/arena-docs

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt: files above need formatting"; exit 1; }
	$(GO) vet ./...

# Fuzzing session of every Fuzz* target of every package (found with
# go test -list, so new parsers' targets join by themselves), FUZZTIME each.
# Seed corpora live in each package's testdata/fuzz/<target>/ and also run
# in every plain `go test`.
FUZZTIME ?= 15s
fuzz:
	@failed=""; for pkg in $$($(GO) list ./...); do \
	  for target in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$target ($(FUZZTIME))"; \
	    $(GO) test $$pkg -run '^$$' -fuzz "^$$target\$$" -fuzztime $(FUZZTIME) || failed="$$failed $$pkg.$$target"; \
	  done; \
	done; \
	if [ -n "$$failed" ]; then echo "fuzz: failed:$$failed (new crashers are in the package's testdata/fuzz/)"; exit 1; fi

clean:
	rm -rf bin results
