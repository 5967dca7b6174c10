# Thin wrapper over CMake + Ninja. `make run` and `make test` are the two README commands.
# `make test` = `make test-release` (GCC build, its ctest) then `make test-sanitize` (clang-14
# ASan+UBSan build in $(SANITIZE_DIR), its ctest, and every fuzz target for a bounded time).
BUILD_DIR ?= build
SANITIZE_DIR ?= build-asan
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
	build-sanitize fuzz bench clean

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

test: test-release test-sanitize

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
	rm -rf $(BUILD_DIR) $(SANITIZE_DIR)
