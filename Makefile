# Thin wrapper over CMake + Ninja. `make run` and `make test` are the two README commands.
# `make test` = `make test-release` (GCC build, its ctest), `make test-sanitize` (clang-14
# ASan+UBSan build in $(SANITIZE_DIR), its ctest, and every fuzz target for a bounded time),
# `make test-tsan` (clang-14 ThreadSanitizer build in $(TSAN_DIR), the concurrent tests).
# Both clang builds also check the lock annotations (-Wthread-safety, errors; see
# docs/contributing.md).
BUILD_DIR ?= build
SANITIZE_DIR ?= build-asan
TSAN_DIR ?= build-tsan
SANITIZERS ?= address,undefined
FUZZ_SECONDS ?= 300
BUILD_TYPE ?= RelWithDebInfo
WERROR ?= $(if $(CAPPLAN_WERROR),$(CAPPLAN_WERROR),OFF)
JOBS ?= 2
LISTEN ?= 127.0.0.1:50051
METRICS ?= 127.0.0.1:9464
HTTP ?= 127.0.0.1:8080
DB ?= var/capplan.db

.PHONY: all deps configure build lint run test test-release test-sanitize configure-sanitize \
	build-sanitize test-tsan configure-tsan build-tsan fuzz bench clean

all: build

deps:
	@bash scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DCAPPLAN_WERROR=$(WERROR) >/dev/null

build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)

run: build
	@mkdir -p $(dir $(DB))
	@bash scripts/dev-admin-token.sh var/admin-tokens
	exec $(BUILD_DIR)/server/capplan-server --listen=$(LISTEN) --metrics_listen=$(METRICS) --http_listen=$(HTTP) \
	  --db=$(DB) --admin_token_file=var/admin-tokens

test: test-release test-sanitize test-tsan

test-release: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

# clang, so the same build can link libFuzzer targets; benchmarks are left out (nothing to
# learn from timing instrumented code). The third-party libraries stay Debian's GCC builds.
configure-sanitize: deps
	@cmake -S . -B $(SANITIZE_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_COMPILER=clang++-14 \
	  -DCAPPLAN_SANITIZE=$(SANITIZERS) -DCAPPLAN_FUZZ=ON -DCAPPLAN_BENCHMARKS=OFF \
	  -DCAPPLAN_WERROR=$(WERROR) >/dev/null

build-sanitize: configure-sanitize
	@cmake --build $(SANITIZE_DIR) -j $(JOBS)

# LSan reads only third-party frames from the suppressions file (see the file); UBSan stops
# at the first finding so the test that hit it fails.
SANITIZER_ENV = ASAN_OPTIONS=detect_stack_use_after_return=1:strict_string_checks=1 \
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/sanitize/lsan.supp:print_suppressions=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-14/bin/llvm-symbolizer

test-sanitize: build-sanitize
	cd $(SANITIZE_DIR) && $(SANITIZER_ENV) ctest --output-on-failure -j $(JOBS)

# ThreadSanitizer: a third build (TSan excludes ASan) of only what the concurrent tests need,
# at -O1 with line tables only (all TSan's reports need), and only those tests: the server's
# worker threads (watch recompute, TCO gauges, the HTTP deadline timer), streams, drain and
# shutdown, HTTP and connection limits, the memos, catalog writes racing reads. The servers
# the tests start are TSan builds too. Debian's Abseil is not TSan-built:
# tests/sanitize/tsan_absl_mutex.cc (linked first into every program of this build) makes
# absl::Mutex visible to TSan. tests/sanitize/tsan.supp may name only third-party frames,
# each with its reason. Every report, from a test or from a server it started, lands in
# $(TSAN_DIR)/tsan-reports/ and fails the target, even when the test passed.
# The accept guard (server/rpc/accept_guard.h) replaces accept/accept4 for the process, TSan's
# interceptors included; in this build it accepts through TSan's, so that TSan knows which
# thread created each connection's descriptor (without it, clang 14's runtime aborted the server
# when reporting a race on one). Tests that bound elapsed time scale the slack they allow the
# server's own overhead by CAPPLAN_TEST_TIME_SCALE (tests/integration/server_process.h).
# Part of `make test`: about 8 minutes to build cold on 2 cores, 2 to run.
TSAN_TARGETS ?= capplan_server capplan_integration_test capplan_service_test
TSAN_SUITES ?= WatchTest WatchLimitsTest WatchReconnectTest WatchRefreshTest WatchHubTest DrainTest \
	HttpLimitsTest HttpTest ConnectionLimitsTest ReliabilityTest TcoScenariosTest ClientRetryTest \
	PlannerRpcTest AdminTest JsonMemoTest
# Needs the CLI, which this build leaves out.
TSAN_SKIP ?= ^TcoScenariosTest\.CliWritesListsAndDeletes$$
empty :=
space := $(empty) $(empty)
TSAN_TESTS = ^($(subst $(space),|,$(strip $(TSAN_SUITES))))\.
configure-tsan: deps
	@cmake -S . -B $(TSAN_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_COMPILER=clang++-14 -DCAPPLAN_SANITIZE=thread -DCAPPLAN_FUZZ=OFF \
	  -DCAPPLAN_BENCHMARKS=OFF -DCAPPLAN_WERROR=$(WERROR) \
	  '-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG' >/dev/null

build-tsan: configure-tsan
	@cmake --build $(TSAN_DIR) -j $(JOBS) --target $(TSAN_TARGETS)

TSAN_ENV = CAPPLAN_TEST_TIME_SCALE=2 TSAN_OPTIONS=suppressions=$(CURDIR)/tests/sanitize/tsan.supp:print_suppressions=0:second_deadlock_stack=1:history_size=4:log_path=$(CURDIR)/$(TSAN_DIR)/tsan-reports/report \
	TSAN_SYMBOLIZER_PATH=/usr/lib/llvm-14/bin/llvm-symbolizer

test-tsan: build-tsan
	@rm -rf $(TSAN_DIR)/tsan-reports && mkdir -p $(TSAN_DIR)/tsan-reports
	@cd $(TSAN_DIR) && $(TSAN_ENV) ctest -R '$(TSAN_TESTS)' -E '$(TSAN_SKIP)' --output-on-failure -j $(JOBS); rc=$$?; \
	  if [ -n "$$(ls -A tsan-reports)" ]; then cat tsan-reports/*; \
	    echo "ThreadSanitizer reported the above ($(TSAN_DIR)/tsan-reports/)"; exit 1; fi; exit $$rc

# Each fuzz target for FUZZ_SECONDS (default 300), one after another, continuing from the
# corpus earlier runs grew in $(SANITIZE_DIR)/tests/fuzz/corpus/.
fuzz: build-sanitize
	$(SANITIZER_ENV) FUZZ_SECONDS=$(FUZZ_SECONDS) cmake --build $(SANITIZE_DIR) --target fuzz

# clang-format and clang-tidy over the tree (CI runs this after make test).
lint: build
	JOBS=$(JOBS) bash scripts/lint.sh $(BUILD_DIR)

bench: build
	$(BUILD_DIR)/tests/core/capplan_core_bench
	$(BUILD_DIR)/tests/server/capplan_planning_bench

clean:
	rm -rf $(BUILD_DIR) $(SANITIZE_DIR) $(TSAN_DIR)
