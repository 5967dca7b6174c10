# Thin wrapper over CMake + Ninja. `make run` and `make test` are the two README commands.
BUILD_DIR ?= build
BUILD_TYPE ?= RelWithDebInfo
WERROR ?= $(if $(CAPPLAN_WERROR),$(CAPPLAN_WERROR),OFF)
JOBS ?= 2
LISTEN ?= 127.0.0.1:50051
METRICS ?= 127.0.0.1:9464
DB ?= var/capplan.db

.PHONY: all deps configure build run test bench clean

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
	exec $(BUILD_DIR)/server/capplan-server --listen=$(LISTEN) --metrics_listen=$(METRICS) \
	  --db=$(DB) --admin_token_file=var/admin-tokens

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

bench: build
	$(BUILD_DIR)/tests/core/capplan_core_bench
	$(BUILD_DIR)/tests/server/capplan_planning_bench

clean:
	rm -rf $(BUILD_DIR)
