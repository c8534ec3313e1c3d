#!/usr/bin/env bash
# The money workflows' tests once more on production's shape (README "CI"): a Temporal server on
# PostgreSQL (npm run temporal:server's, with its databases on the machine's PostgreSQL) instead of
# the dev server, and the suite's database behind PgBouncer in transaction mode. The files are
# test/production-pass.json's. Usage: scripts/production-pass.sh <Jest JSON report> [jest options].
# Installs Debian's pgbouncer when it is missing; exits 1 when a test fails or nothing can run.
set -uo pipefail
cd "$(dirname "$0")/.."
report=$1
shift

if ! pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; then
  echo "No PostgreSQL server answers on 127.0.0.1:5432: the production pass needs one (the Temporal server's databases)."
  exit 1
fi
if ! command -v pgbouncer >/dev/null 2>&1; then
  as_root=()
  [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && as_root=(sudo -n)
  echo "Installing Debian's pgbouncer for the production pass"
  export DEBIAN_FRONTEND=noninteractive
  "${as_root[@]}" apt-get install -y pgbouncer ||
    { "${as_root[@]}" apt-get update && "${as_root[@]}" apt-get install -y pgbouncer; } ||
    { echo "Could not install pgbouncer (apt-get install -y pgbouncer): the production pass cannot run."; exit 1; }
fi

mapfile -t files < <(node -e 'for (const f of require("./test/production-pass.json").files) console.log(f.file)')
started=$(date +%s)
TEST_ADMIN_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres TEST_TEMPORAL=server TEST_PGBOUNCER=true \
  npm test -- --json --outputFile="$report" "$@" "${files[@]}"
status=$?
echo "production pass: $(( $(date +%s) - started )) s"
exit $status
