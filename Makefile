# RetryFlow: `make run` and `make test` work on a fresh Debian machine with the Swift toolchain.
SWIFT ?= swift

.PHONY: deps deps-browser build run test test-browser test-tsan diagrams docs docs-regenerate man clean

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

# Serial: the HTTP tests measure real waits (Retry-After, cancellation within 50 ms) against a
# loopback server, and on 2 shared cores parallel suites would starve each other's timers.
test: deps-browser
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --no-parallel
	SWIFT=$(SWIFT) scripts/bench-smoke.sh
	scripts/test-browser.sh
	scripts/build-docs.sh

# Run reports (--report FILE.html) in headless Chromium: a separate command so the Swift tests stay fast.
test-browser: deps-browser
	scripts/test-browser.sh

# The DocC sites of RetryFlow and RetryFlowHTTP, built offline with warnings as errors, in .build/docs;
# and the step-through pages of docs/runs/ (a test compares them with the committed ones).
docs: deps
	$(SWIFT) build --build-tests
	RETRYFLOW_REGENERATE_TEACHING_PAGES=1 $(SWIFT) test --skip-build --filter TeachingPagesTests
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

test-tsan: deps
	$(SWIFT) test --sanitize=thread

clean:
	rm -rf .build
