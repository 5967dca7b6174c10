#!/usr/bin/env bash
# Creates a development admin token file for `make run` if there is none yet (mode 0600).
# Format, one token per line: <token> <caller-name> <role>, role being admin or read.
set -euo pipefail
file=${1:?usage: dev-admin-token.sh FILE}
[ -f "$file" ] && exit 0
mkdir -p "$(dirname "$file")"
umask 077
token=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
printf '%s dev-admin admin\n' "$token" >"$file"
echo "dev-admin-token: wrote a new admin token to $file (export CAPPLAN_ADMIN_TOKEN_FILE=$file for the CLI)"
