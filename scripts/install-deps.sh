#!/usr/bin/env bash
# Installs the Debian 12 packages capplan builds, tests and runs with. Idempotent: when every
# package is already installed it does not touch apt at all. clang-14 with its runtimes
# (libclang-rt-14-dev: ASan, UBSan, libFuzzer) and llvm-14 (llvm-symbolizer, for readable
# sanitizer stacks) serve the sanitizer and fuzzing build of `make test`. chromium,
# chromium-driver and python3-selenium drive the web page in a headless browser
# (tests/web/browser_test.py). postgresql-15 (its server binaries run throwaway clusters in the
# replica tests, tests/pg/) and libpq-dev (the PostgreSQL catalog backend, --db=postgresql://)
# serve deployments of more than one replica. python3-jsonschema checks the docs' curl examples
# against the served OpenAPI document (tests/integration/openapi_check.py).
#
# One tool comes from npm, not Debian (Debian packages no OpenAPI linter): Redocly CLI, pinned,
# under /opt/capplan-npm, which the openapi.lint test runs on the served document. Without npm
# or a network the step is skipped with a note and that test reports SKIP.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libabsl-dev prometheus-cpp-dev libcivetweb-dev libsqlitecpp-dev libsqlite3-dev sqlite3
  libgtest-dev libgmock-dev libbenchmark-dev
  clang-14 libclang-rt-14-dev llvm-14 clang-format-14 clang-tidy-14
  prometheus curl openssl python3 python3-yaml python3-jsonschema
  chromium chromium-driver python3-selenium
  postgresql-15 postgresql-client-15 libpq-dev
)

if [ "$(id -u)" -ne 0 ]; then
  SUDO=sudo
else
  SUDO=
fi

# chromedriver reaches the browser it starts at "localhost", and Selenium reaches chromedriver
# there too. A minimal root (debootstrap, some container images) has no /etc/hosts, so the name
# does not resolve; add the standard loopback lines in that case only.
if ! getent hosts localhost >/dev/null; then
  echo "install-deps: localhost does not resolve; adding it to /etc/hosts"
  printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' | $SUDO tee -a /etc/hosts >/dev/null
fi

REDOCLY_VERSION=2.77.0
NPM_PREFIX=/opt/capplan-npm
install_redocly() {
  local bin="$NPM_PREFIX/node_modules/.bin/redocly"
  if [ -x "$bin" ] && [ "$(REDOCLY_SUPPRESS_UPDATE_NOTICE=true "$bin" --version 2>/dev/null | head -1)" = "$REDOCLY_VERSION" ]; then
    return 0
  fi
  if ! command -v npm >/dev/null; then
    echo "install-deps: npm not found; the openapi.lint test will be skipped"
    return 0
  fi
  echo "install-deps: installing @redocly/cli@$REDOCLY_VERSION under $NPM_PREFIX"
  $SUDO mkdir -p "$NPM_PREFIX"
  $SUDO npm install --prefix "$NPM_PREFIX" --no-audit --no-fund --save-exact "@redocly/cli@$REDOCLY_VERSION" ||
    echo "install-deps: npm install failed (offline?); the openapi.lint test will be skipped"
}
trap install_redocly EXIT

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
