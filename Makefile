# RetryFlow: `make run` and `make test` work on a fresh Debian machine with the Swift toolchain.
SWIFT ?= swift

.PHONY: lint format deps deps-browser build run test test-browser test-tsan diagrams docs docs-regenerate man clean stress fuzz \
	bench

deps:
	@scripts/install-deps.sh

# What the browser tests need too (chromium, chromium-driver, selenium).
deps-browser:
	@scripts/install-deps.sh --browser

build: deps
	$(SWIFT) build

# The main job: live retries against an in-process flaky server; traces and charts in ./retryflow-demo.
run: deps
	$(SWIFT) run retryflow demo

# Parallel, as `swift test` runs by default: nothing blocks or computes for long on Swift's cooperative
# pool (URLSession's blocking calls run on CallThreads, the library's own threads; FlakyServer.stop()
# returns at once; tests hash, compare and block in runOnOwnThread: docs/reliability.md, "The loaded
# machine"), and timing expectations keep margins a loaded 2-core machine holds (speed: retryflow-bench).
# scripts/swift-test.sh runs `swift test` once more only if the process died in libdispatch's event
# loop with nothing failed before it (a libdispatch race, docs/reliability.md).
# The benchmarks (Benchmarks/, a package of their own) are only built here, so they cannot rot; nothing is
# timed in `make test` (`make bench` runs them).
# scripts/outside-package.sh builds Examples/OutsideStep, a package that uses only the products, in
# .build/outside-package, and checks its user steps by name on chart and trace (docs/user-steps.md); then it
# builds Examples/DocSamples, the docs' samples outside the package, where its `package` API is out of reach.
test: deps-browser lint
	$(SWIFT) build --build-tests
	SWIFT=$(SWIFT) scripts/swift-test.sh --skip-build
	$(SWIFT) build --package-path Benchmarks --scratch-path .build/benchmarks
	SWIFT=$(SWIFT) scripts/outside-package.sh
	Fuzz/run.sh --smoke
	scripts/test-browser.sh
	$(MAKE) test-tsan
	scripts/build-docs.sh

# The whole tree against .swift-format (4-space indent, 120 columns); `make format` fixes what it can.
lint:
	$(SWIFT) format lint --strict --parallel -r Package.swift Sources Tests Fuzz Examples Benchmarks/Package.swift \
		Benchmarks/Sources

format:
	$(SWIFT) format format -i --parallel -r Package.swift Sources Tests Fuzz Examples Benchmarks/Package.swift \
		Benchmarks/Sources

# Run reports (--report FILE.html) in headless Chromium: a separate command so the Swift tests stay fast.
test-browser: deps-browser
	scripts/test-browser.sh

# The DocC sites of RetryFlow and RetryFlowHTTP, built offline with warnings as errors, in .build/docs;
# the step-through pages of docs/runs/, and the classic figures of docs/figures/ (`retryflow teach all`,
# docs/figures.md; in release, where they take seconds: `make bench BENCH=classic-figures`); tests compare
# both with the committed ones.
docs: deps
	$(SWIFT) build --build-tests
	RETRYFLOW_REGENERATE_TEACHING_PAGES=1 $(SWIFT) test --skip-build --filter TeachingPagesTests
	$(SWIFT) build -c release --product retryflow
	"$$($(SWIFT) build -c release --show-bin-path)/retryflow" teach all --output docs/figures
	scripts/build-docs.sh

# Regenerates diagrams/ from the transition table (the drift test compares them byte for byte).
diagrams: deps
	RETRYFLOW_REGENERATE_DIAGRAMS=1 $(SWIFT) test --filter DiagramDriftTests

# Regenerates the tool outputs embedded in README.md and docs/ (a test compares them with the tool's).
docs-regenerate: deps
	$(SWIFT) build --build-tests
	RETRYFLOW_REGENERATE_DOCS=1 $(SWIFT) test --skip-build --filter DocsDriftTests

# The man page, generated from the same texts as --help (`retryflow help --man`), in .build/man/retryflow.1
# (read it with `man -l .build/man/retryflow.1`); written to a temporary file first, so a failed run leaves none.
man: deps
	$(SWIFT) build --product retryflow
	mkdir -p .build/man
	"$$($(SWIFT) build --show-bin-path)/retryflow" help --man > .build/man/retryflow.1.tmp
	mv .build/man/retryflow.1.tmp .build/man/retryflow.1

# ThreadSanitizer over the whole suite, in its own build directory (the CLI tests' child retryflow
# is sanitized too, and its reports fail the test that ran it). make test runs it. Serial: TSan slows
# code 5-15x, and with every suite at once on 2 cores the cancellation and deadline tests (whose
# bounds the parallel run above holds) miss them by seconds; races do not need the crowd to show.
test-tsan: deps
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build/tsan
	SWIFT=$(SWIFT) scripts/swift-test.sh --skip-build --sanitize=thread --scratch-path .build/tsan --no-parallel

clean:
	rm -rf .build

# The cancel storm at full size in release mode (10,000 requests, 10 % cancelled, timeouts racing
# answers), then hedged (every attempt a race, losers cancelled): `make stress STRESS_RUNS=10` for
# the record; STRESS_ARGS go to retryflow-stress.
STRESS_RUNS ?= 1
STRESS_ARGS ?=
stress: deps
	RUNS=$(STRESS_RUNS) scripts/stress.sh $(STRESS_ARGS)
	RUNS=$(STRESS_RUNS) scripts/stress.sh --no-url-cache --hedge-ms 20 $(STRESS_ARGS)

# libFuzzer over every parser of outside input (Fuzz/targets), FUZZ_SECONDS each (default 60):
# `make fuzz FUZZ_SECONDS=600` for a long run. Needs nothing beyond the toolchain and Graphviz.
# `make test` runs `Fuzz/run.sh --smoke`: every target built and run 5 s on its seeds, so a target
# that stops building (or trips at once) fails CI instead of rotting until the next long run.
FUZZ_SECONDS ?= 60
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) Fuzz/run.sh

# The benchmarks, in release mode, from their own package (Benchmarks/, results in docs/benchmarks.md):
# every one, or `make bench BENCH="adaptive-throttle nginx-concurrency"`; BENCH_ARGS go to retryflow-bench
# (`--quick`, `--json FILE`, `--size MIB`). cli-startup times the retryflow CLI, an executable of this
# package that a package depending on it does not build: it is built here when cli-startup, verify-scale or classic-figures runs.
BENCH ?=
BENCH_ARGS ?=
BENCH_BUILD = $(SWIFT) build -c release --package-path Benchmarks --scratch-path .build/benchmarks
bench: deps
	case " $(BENCH) " in "  " | *" cli-startup "* | *" verify-scale "* | *" classic-figures "*) $(SWIFT) build -c release --product retryflow ;; esac
	$(BENCH_BUILD)
	RETRYFLOW_CLI="$$($(SWIFT) build -c release --show-bin-path)/retryflow" \
		"$$($(BENCH_BUILD) --show-bin-path)/retryflow-bench" $(BENCH_ARGS) $(BENCH)
