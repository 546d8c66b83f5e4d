# One entry point for every chore; CI runs `make test`.
SHELL := /bin/bash
CARGO ?= cargo
export CARGO_TARGET_DIR ?= $(CURDIR)/target

.PHONY: public-api swift-root lint-sources lint-bench demo demo-cluster test-cluster cluster-suites conformance-cluster bench-cluster bench-instructions test lint test-rust test-interop test-conformance test-python test-node build-node test-node-install test-apps test-swift test-oidc conformance-next conformance-gateway conformance-proxy conformance-rust conformance-python conformance-node-swift bench build-examples fuzz fuzz-smoke soak help dist dist-python dist-node test-dist test-dist-installs check-platforms lint-workflows

help: ## Lists the targets.
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

demo: build-examples ## Builds the examples and runs the calculator client against the calculator server over stdio.
	$(CARGO_TARGET_DIR)/debug/examples/calculator_client

# With the `redis` feature, which the workspace's tests and the packages enable too. `make demo`
# builds the core's package alone; make test builds the examples over test-rust's selection of the
# workspace, so that they reuse the core and the dependencies test-rust compiled: over the core's
# package alone, some dependencies (getrandom, ahash, jsonschema) get other features, and they and
# the core were compiled once more.
EXAMPLE_PACKAGES ?= -p mcpweft
build-examples:
	$(CARGO) build $(EXAMPLE_PACKAGES) --features mcpweft/redis --examples

demo-cluster: ## Starts Redis, haproxy (round robin, no session affinity) and three cluster_server processes on loopback, installing redis-server and haproxy when missing, and runs cluster_client, then the official TypeScript SDK's client (tests/interop/ts_cluster_client.mjs, once npm ci ran there) and the official Python SDK's (tests/interop/py_cluster_client.py, with mcp in .venv), through the balancer.
	$(MAKE) build-examples
	tests/cluster/demo.sh

test-cluster: ## Runs the cluster tests (Redis, haproxy, three server processes; skipped with a message where the packages cannot be installed), then cluster-suites.
	$(CARGO) test $(RUST_TESTS) --test it cluster::
	$(CARGO) test $(RUST_TESTS) --test server_client cluster
	$(MAKE) cluster-suites

# make test runs the cluster tests in test-rust (the workspace's tests include them) and this after.
cluster-suites: tests/conformance/node_modules/.package-lock.json ## Runs the cluster demo with the Rust and the official TypeScript and Python SDK clients, and the conformance server suites (0.1.16 and 0.2.0-alpha.12) through the balancer.
	cd tests/interop && npm ci --no-audit --no-fund --loglevel=error
	test -x .venv/bin/python || python3 -m venv .venv
	.venv/bin/python -m pip install --quiet --disable-pip-version-check "$$(grep '^mcp==' python/requirements-dev.txt)"
	@if tests/cluster/setup.sh; then $(MAKE) demo-cluster conformance-cluster; \
	else echo "SKIPPED: the demo (Rust, TypeScript and Python SDK clients) and the conformance suites through the balancer need redis-server and haproxy"; fi

conformance-cluster: tests/conformance/node_modules/.package-lock.json ## Runs the conformance server suites (0.1.16, then 0.2.0-alpha.12 with revision 2026-07-28 and the tasks extension) against three Rust fixture processes sharing their sessions and tasks in Redis, through haproxy without session affinity, and suite 0.1.16 against three `mcpweft proxy --listen --redis` processes and three `mcpweft gateway --redis` processes in front of the fixture over stdio.
	CONFORMANCE_SKIP_INSTALL=1 tests/conformance/run.sh server rust-cluster
	CONFORMANCE_NEXT=1 CONFORMANCE_SKIP_INSTALL=1 CONFORMANCE_RESULTS=$(CURDIR)/tests/conformance/results/next tests/conformance/run.sh server rust-cluster
	CONFORMANCE_SKIP_INSTALL=1 tests/conformance/run.sh server proxy-cluster gateway-cluster

# The steps of make test, in order; tests/all.sh runs them, with the check of the shipped crates for
# Windows and macOS and the build of the fuzz targets in the background from the start, then a
# short fuzzing pass, and prints how long each step took and the CPU time it used.
# Work that no step needs soon runs in the background (+NAME) at the lowest priority from the
# start, and is waited for (=NAME) where a step needs it: the Swift root (a Debian root with
# Swift, made once and cached) and the release packages (until their install tests). The steps
# take the CPUs first; the background work fills the time they spend waiting on servers,
# clients and interpreters. On two cores the run is bound by its CPU time, which each step prints.
# The benchmark is compiled by check-platforms for Windows and macOS (its clippy lints are make
# lint's): a host check of its own compiled the whole graph again.
TEST_STEPS = lint-sources lint-workflows +swift-root +dist test-rust cluster-suites test-oidc test-python test-node test-apps test-node-install =dist test-dist-installs test-interop =swift-root test-swift test-conformance

test: ## Runs every test: lints (the release workflows too), Rust, Python, Node and Swift tests, the Redis cluster, authorization against a real OAuth server, the release packages installed without Rust, an MCP App rendered in headless Chromium, TypeScript SDK interop, the official conformance suite, a check of the shipped crates and the benchmark for Windows and macOS with the snapshot of the core's public API, a short fuzzing pass.
	tests/all.sh $(TEST_STEPS)

# In make test, clippy lints the workspace's crates while they are compiled for the tests, the
# packages and the examples (clippy-driver wraps rustc for the workspace's members, warnings
# denied), instead of checking every dependency once more for `make lint`: the Swift glue is
# linted when test-swift builds it, and uniffi-bindgen when it regenerates the Swift sources. The
# benchmark's lints are make lint's (and lint-bench's); make test compiles it in check-platforms.
test: export RUSTC_WORKSPACE_WRAPPER = clippy-driver
test: export EXAMPLE_PACKAGES = $(RUST_TESTS)
test: export RUSTFLAGS = -D warnings

# The packages make test installs are built without link-time optimization or optimizations:
# their files, tags and behaviour are those of make dist, and the cold run compiles them with
# about 325 s of CPU instead of 670 s at optimization level 1. Unoptimized, the wheel and the
# addon's package weigh 12.6 and 12.7 MB: their 10 MB limit (MCPWEFT_DIST_MAX_MB) holds for make
# dist's own profile (8.3 and 8.2 MB), which the release workflow builds.
test: export CARGO_PROFILE_RELEASE_LTO = off
test: export CARGO_PROFILE_RELEASE_OPT_LEVEL = 0
test: export MCPWEFT_DIST_MAX_MB = 16

lint-sources: ## Checks formatting, and that the core and the bridge depend on no FFI crate.
	$(CARGO) fmt --all --check
	@for crate in mcpweft mcpweft-bridge; do \
	  if $(CARGO) tree -p $$crate -e normal --prefix none | grep -E '^(pyo3|napi|uniffi)'; then \
	    echo "$$crate must not depend on an FFI crate" >&2; exit 1; \
	  fi; \
	done

lint-bench: ## Runs clippy on the benchmark's targets, warnings denied.
	$(CARGO) clippy -p mcpweft-bench --all-targets -- -D warnings

lint: lint-sources ## Checks formatting, runs clippy with warnings denied, and checks that the core and the bridge depend on no FFI crate.
	$(CARGO) clippy --workspace --all-targets -- -D warnings

check-platforms: ## Checks the shipped crates and the benchmark for Windows (x86_64) and macOS (arm64) with the nightly toolchain, the targets' standard libraries (or rust-src and -Zbuild-std where rustup cannot add them) and zig as the C compiler, installing what is missing; then compares the core's public API with core/public-api.txt.
	release/check-platforms.sh

lint-workflows: ## Lints the GitHub workflows in .github/workflows with actionlint.
	release/lint-workflows.sh

dist: dist-python dist-node ## Builds the release packages of this platform into target/dist: the Python wheel (manylinux_2_17) and sdist, the npm main package and its linux-x64-gnu package.

dist-python: ## Builds the Python wheel (abi3, manylinux_2_17, with zig) and the sdist into target/dist/python.
	python/scripts/dist.sh

dist-node: ## Builds the npm main package and the linux-x64-gnu package (glibc 2.17, with zig) into target/dist/node.
	node/scripts/dist.sh

test-dist: dist test-dist-installs ## Builds the packages of make dist, installs them with no cargo on PATH and no index, and serves the official clients from them (Python, then Node from ESM and CommonJS).

test-dist-installs: ## The install tests of test-dist, on packages make dist built before.
	python/scripts/test-dist.sh
	cd node && node --test --test-force-exit --test-reporter=spec test/dist/*.test.mjs

# The Swift glue has no Rust tests (test-swift drives it), uniffi-bindgen is a tool and the
# benchmark has no tests (lint checks it): leaving them out keeps uniffi's code generator and the
# peers the benchmark compares with out of this build, whose libraries the examples, the
# conformance fixtures and the Python and Node packages then reuse as they are.
RUST_TESTS = --workspace --exclude mcpweft-swift --exclude uniffi-bindgen --exclude mcpweft-bench

test-rust: ## Runs the Rust unit, integration and doc tests, the cluster tests among them.
	$(CARGO) test $(RUST_TESTS)

# The official reference server (@modelcontextprotocol/server-everything) that the Python and
# Node host tests run beside the Rust and Python examples, from its lockfile.
tests/host/node_modules/.package-lock.json: tests/host/package.json tests/host/package-lock.json
	cd tests/host && npm ci --no-audit --no-fund --loglevel=error
	touch $@

test-python: build-examples tests/host/node_modules/.package-lock.json ## Builds the Python package into .venv, runs pytest, ruff, mypy and stubtest.
	python/scripts/test.sh

swift-root: ## Makes the Debian trixie root with Swift that the Swift builds run in (once; cached).
	bindings/swift/scripts/toolchain.sh >/dev/null

test-swift: build-examples tests/host/node_modules/.package-lock.json tests/conformance/node_modules/.package-lock.json ## Builds the Swift package in a Debian trixie root (made once, cached), runs its XCTests (the host's over the Rust and Python calculators and the reference server) and its interop with the official SDKs and the other examples.
	python/scripts/build.sh
	bindings/swift/scripts/test.sh
	bindings/swift/scripts/interop.sh

# The Node package's development dependencies (@napi-rs/cli, the TypeScript SDK, zod…), from
# its lockfile, without their install scripts; build-node builds the addon (in debug, sharing
# the workspace's target folder) into node/mcpweft.node, which the loader prefers.
node/node_modules/.package-lock.json: node/package.json node/npm-shrinkwrap.json
	cd node && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	touch $@

build-node: node/node_modules/.package-lock.json ## Builds the Node package's addon (debug) and its generated native.d.ts.
	node node/scripts/build.mjs --debug

# The conformance harness's dependencies; they include Node 22 (the npm package `node`).
tests/oidc/node_modules/.package-lock.json: tests/oidc/package.json tests/oidc/package-lock.json
	cd tests/oidc && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# oidc-provider supports Node 22 and later: the tests run it with the Node 22 the conformance
# suite's lockfile pins.
test-oidc: tests/oidc/node_modules/.package-lock.json tests/conformance/node_modules/.package-lock.json ## Logs in at a real authorization server (oidc-provider on loopback) and calls a protected server, from the core's client and through the command line (`mcpweft proxy URL`, `--url`, `--config`).
	PATH="$(CURDIR)/tests/conformance/node_modules/node/bin:$$PATH" $(CARGO) test $(RUST_TESTS) --test it -- --ignored auth_oidc:: oauth_oidc::

tests/conformance/node_modules/.package-lock.json: tests/conformance/package.json tests/conformance/package-lock.json
	cd tests/conformance && npm ci --no-audit --no-fund --loglevel=error
	touch $@

test-node: build-node build-examples tests/host/node_modules/.package-lock.json tests/conformance/node_modules/.package-lock.json ## Builds the Node package, checks its committed native.d.ts and its types (tsc), runs node --test on Node 20 and 22 (the host tests run the Rust and Python examples and the reference server).
	git diff --exit-code -- node/native.d.ts || { echo "node/native.d.ts changed: commit the regenerated file" >&2; exit 1; }
	python/scripts/build.sh
	cd node && npx --no-install tsc -b type-test
	cd node && node --test --test-force-exit --test-timeout=300000 --test-reporter=spec test/*.test.mjs
	cd node && PATH="$(CURDIR)/tests/conformance/node_modules/node/bin:$$PATH" && node --version && \
		node --test --test-force-exit --test-timeout=300000 --test-reporter=spec test/*.test.mjs

test-node-install: build-node ## Packs the checkout's Node main package, installs it into a fresh project (nothing compiles), builds its addon with the opt-in build-from-source script and runs it from ESM and CommonJS.
	cd node && node --test --test-force-exit --test-reporter=spec test/install/*.test.mjs

# The official Apps SDK, the TypeScript SDK, esbuild and puppeteer-core, from the lockfile.
tests/apps/node_modules/.package-lock.json: tests/apps/package.json tests/apps/package-lock.json
	cd tests/apps && npm ci --no-audit --no-fund --loglevel=error
	touch $@

test-apps: build-examples tests/apps/node_modules/.package-lock.json ## Renders the calculator MCP App of core/examples/apps_server.rs in headless Chromium (Debian's, installed when missing): its view, on the official Apps SDK, calls the server's tool through a host page's AppBridge and the official TypeScript SDK's client.
	tests/install-packages.sh chromium
	cd tests/apps && node --test --test-reporter=spec

test-interop: build-examples ## Runs the official TypeScript SDK against the Rust examples, both ways, and the official TypeScript and Python SDK clients over stdio through `mcpweft proxy URL` to the Rust conformance fixture over HTTP.
	$(CARGO) build -p mcpweft-cli
	tests/conformance/server-rust --build
	test -x .venv/bin/python || python3 -m venv .venv
	.venv/bin/python -m pip install --quiet --disable-pip-version-check "$$(grep '^mcp==' python/requirements-dev.txt)"
	cd tests/interop && npm ci --no-audit --no-fund --loglevel=error && node --test

test-conformance: tests/conformance/node_modules/.package-lock.json ## Runs the official MCP conformance suites against the fixtures: 0.1.16 (server and client scenarios), and 0.2.0-alpha.12 (revision 2026-07-28, extensions): server scenarios against the Rust, Python, Node and Swift servers and the Rust one behind `mcpweft proxy --listen` and `mcpweft gateway --no-prefix`, client scenarios against the Rust and Python clients.
	$(MAKE) -j4 --output-sync=target conformance-rust conformance-python conformance-node-swift conformance-proxy conformance-gateway

# The parts of test-conformance, four run side by side (the gateway's, the shortest with the
# proxy's, when the first part ends): a run of the suite keeps a CPU half busy (its CLI and a
# fixture take turns, and client scenarios wait on time-outs), and each part names its own
# fixtures, so none wipes another's results. The second suite runs on the first's builds.
conformance-rust conformance-python: conformance-%: tests/conformance/node_modules/.package-lock.json
	CONFORMANCE_SKIP_INSTALL=1 tests/conformance/run.sh all $*
	CONFORMANCE_NEXT=1 CONFORMANCE_SKIP_INSTALL=1 CONFORMANCE_SKIP_BUILD=1 CONFORMANCE_RESULTS=$(CURDIR)/tests/conformance/results/next tests/conformance/run.sh all $*

conformance-node-swift: tests/conformance/node_modules/.package-lock.json
	CONFORMANCE_SKIP_INSTALL=1 tests/conformance/run.sh all node swift
	CONFORMANCE_NEXT=1 CONFORMANCE_SKIP_INSTALL=1 CONFORMANCE_SKIP_BUILD=1 CONFORMANCE_RESULTS=$(CURDIR)/tests/conformance/results/next tests/conformance/run.sh server node swift

# `all rust` then `server python node swift`: a run wipes only the results of the fixtures it names.
conformance-next: tests/conformance/node_modules/.package-lock.json ## Runs conformance suite 0.2.0-alpha.12 (revision 2026-07-28, extensions): its 65 server scenarios against the Rust, Python, Node and Swift servers, its 48 client scenarios against the Rust and Python clients.
	CONFORMANCE_NEXT=1 CONFORMANCE_SKIP_INSTALL=1 CONFORMANCE_RESULTS=$(CURDIR)/tests/conformance/results/next tests/conformance/run.sh all rust python
	CONFORMANCE_NEXT=1 CONFORMANCE_SKIP_INSTALL=1 CONFORMANCE_RESULTS=$(CURDIR)/tests/conformance/results/next tests/conformance/run.sh server node swift

conformance-gateway: tests/conformance/node_modules/.package-lock.json ## Runs the conformance server suites (0.1.16, then 0.2.0-alpha.12) against `mcpweft gateway --no-prefix` in front of the Rust fixture server over stdio.
	status=0; CONFORMANCE_SKIP_INSTALL=1 tests/conformance/run.sh server gateway || status=1; \
	CONFORMANCE_NEXT=1 CONFORMANCE_SKIP_INSTALL=1 CONFORMANCE_SKIP_BUILD=1 CONFORMANCE_RESULTS=$(CURDIR)/tests/conformance/results/next tests/conformance/run.sh server gateway || status=1; \
	exit $$status

conformance-proxy: tests/conformance/node_modules/.package-lock.json ## Runs both conformance server suites (0.1.16 and 0.2.0-alpha.12) against the Rust fixture spoken to over stdio behind `mcpweft proxy --listen`, one fixture process per HTTP session.
	status=0; CONFORMANCE_SKIP_INSTALL=1 tests/conformance/run.sh server proxy || status=1; \
	CONFORMANCE_NEXT=1 CONFORMANCE_SKIP_INSTALL=1 CONFORMANCE_SKIP_BUILD=1 CONFORMANCE_RESULTS=$(CURDIR)/tests/conformance/results/next tests/conformance/run.sh server proxy || status=1; \
	exit $$status

# The Swift echo server of make bench, linked with the Swift standard library and Foundation
# inside (--static-swift-stdlib, as Swift servers are deployed on Linux). Where Swift lives in the
# root of toolchain.sh, the server runs outside that root through the root's dynamic loader and
# C libraries, so that its start-up is its own, without the mount namespace and chroot of run.sh.
SWIFT_ROOT = $(or $(MCPWEFT_SWIFT_ROOT),$(or $(XDG_CACHE_HOME),$(HOME)/.cache)/mcpweft/swift-root)
SWIFT_ECHO_BIN = $(CURDIR)/bindings/swift/.build/release/echo-server
SWIFT_ECHO = $(if $(shell command -v swift),$(SWIFT_ECHO_BIN),$(SWIFT_ROOT)/lib64/ld-linux-x86-64.so.2 --library-path $(CARGO_TARGET_DIR)/release:$(SWIFT_ROOT)/lib/x86_64-linux-gnu:$(SWIFT_ROOT)/usr/lib/x86_64-linux-gnu $(SWIFT_ECHO_BIN))

bench: ## Prints the stdio and HTTP benchmarks: mcpweft beside rmcp, mcpweft-py beside FastMCP, mcpweft-node beside the TypeScript SDK, mcpweft-swift beside mcpweft; then the host and the proxy sections (release builds).
	$(CARGO) build --release -p mcpweft-bench -p mcpweft-cli
	bindings/swift/scripts/build.sh --release --product echo-server --static-swift-stdlib
	python="$$(bench/python/setup.sh)" && node="$$(bench/node/setup.sh)" && \
		$(CARGO_TARGET_DIR)/release/mcpweft-bench --python "$$python" --node "$$node" \
		--server "mcpweft-swift=$(SWIFT_ECHO)" --http-server "mcpweft-swift=$(SWIFT_ECHO) --http {port}"

bench-instructions: ## Prints the instructions and heap allocations per small call of the Rust HTTP echo servers (mcpweft, rmcp), counted by callgrind, which a shared machine's load does not move (installs valgrind when missing).
	$(CARGO) build --release -p mcpweft-bench
	tests/install-packages.sh valgrind
	bench/instructions.py 3000 4 mcpweft=$(CARGO_TARGET_DIR)/release/mcpweft-echo-http rmcp=$(CARGO_TARGET_DIR)/release/rmcp-echo-http

bench-cluster: ## Prints the cluster benchmark: 64 sessions through haproxy over 1, 2 and 3 mcpweft processes sharing sessions in Redis, beside one process without Redis (release build).
	$(CARGO) build --release -p mcpweft-bench --features redis
	$(CARGO_TARGET_DIR)/release/mcpweft-bench --cluster-only

fuzz: ## Runs each fuzz target for FUZZ_SECONDS (default 60); needs the nightly toolchain, installs cargo-fuzz if missing.
	fuzz/run.sh

fuzz-smoke: ## Runs each fuzz target for a few seconds (FUZZ_SECONDS=5), built without optimizations and without AddressSanitizer, as make test does.
	FUZZ_SECONDS=5 FUZZ_DEV=1 FUZZ_SANITIZER=none fuzz/run.sh

soak: ## Drives 64 HTTP sessions and a stdio session for SOAK_SECONDS (default 60); fails on any error or memory growth.
	$(CARGO) build --release -p mcpweft-bench --bin mcpweft-soak
	$(CARGO_TARGET_DIR)/release/mcpweft-soak

public-api: ## Rewrites core/public-api.txt, the snapshot of the core's public API that check-platforms (part of make test) compares with; commit it when an API change is meant.
	PUBLIC_API_UPDATE=1 release/check-platforms.sh
