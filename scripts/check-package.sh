#!/usr/bin/env bash
# Packs leadline as npm would publish it, installs the tarball into an empty directory with no
# other dependencies, and uses it there as a user would: `npx leadline --help`, `leadline import`,
# `leadline serve` (health, a v1 call, a docs page, a page asset). Catches what only an installed
# copy shows: a file left out of `files`, a runtime import of a devDependency, a path that works
# from the checkout but not from node_modules. Called by .ci/run; runs by hand from a checkout
# whose dependencies are installed (`npm pack` builds dist/ through `prepack` + `prepare`).
# Packing empties and rebuilds dist/: run it in a checkout nobody else is running the CLI from.
set -euo pipefail
cd "$(dirname "$0")/.."

work="$(mktemp -d "${TMPDIR:-/tmp}/leadline-package.XXXXXX")"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "check-package: $*" >&2
  exit 1
}

# LEADLINE_PACKAGE_TARBALL: a tarball packed from this checkout already (.ci/node-lts passes the
# one the Node 20 run packed: packing rebuilds dist/, and tsc's output is the same under any Node),
# checked and installed as if packed here. LEADLINE_PACKAGE_KEEP: where to copy the tarball packed.
mkdir "$work/pack"
if [ -n "${LEADLINE_PACKAGE_TARBALL:-}" ]; then
  echo "--- the tarball packed before: $LEADLINE_PACKAGE_TARBALL"
  cp "$LEADLINE_PACKAGE_TARBALL" "$work/pack/"
else
  echo "--- npm pack"
  npm pack --pack-destination "$work/pack" >"$work/pack.log" 2>&1 || { cat "$work/pack.log"; fail "npm pack failed"; }
fi
tarball="$(ls "$work"/pack/*.tgz)"
if [ -n "${LEADLINE_PACKAGE_KEEP:-}" ]; then cp "$tarball" "$LEADLINE_PACKAGE_KEEP"; fi
contents="$(tar -tzf "$tarball")"
for needed in package/bin/leadline.js package/dist/cli/main.js package/dist/storage/sqlite/migrations.js \
  package/dist/storage/postgres/migrations.js package/docs/v1-reference.md package/docs/openapi.json \
  package/src/http/assets/console.js package/src/http/assets/leadline.css package/README.md package/CHANGELOG.md \
  package/LICENSE package/node_modules/postgres/src/connection.js; do
  grep -qx "$needed" <<<"$contents" || fail "$needed is missing from $(basename "$tarball")"
done
# Only what runs or is read at run time: no tests, no TypeScript sources, no source maps.
if grep -E '^package/(test|bench|src/.*\.ts$|dist/.*\.map$)' <<<"$contents"; then
  fail "the files above should not be in the package"
fi
echo "$(wc -l <<<"$contents") files in $(basename "$tarball")"
# The PostgreSQL driver ships inside the package with leadline's fix (patches/, docs/scaling.md).
# Read whole before searching: `tar … | grep -q` under pipefail fails at random — grep leaves at
# the first match, and tar, still writing, dies of SIGPIPE.
bundled="$(tar -xzOf "$tarball" package/node_modules/postgres/src/connection.js)"
grep -q 'patched by leadline' <<<"$bundled" || fail "the bundled postgres driver lacks the patch in patches/"

echo "--- npm install <tarball> into an empty directory"
app="$work/app"
mkdir "$app"
# The installing project's own allowScripts decides (a dependency's does not apply): allow
# better-sqlite3 (it builds the native module); deny leadline's `prepare`, which npm lists for a
# tarball although the package ships dist/ built (it compiles the TypeScript, which is not in it).
# A tarball's identity for the policy is `file:<path>` (what `npm install-scripts deny` writes).
# core-js (through redoc) and protobufjs (through OpenTelemetry) have scripts nothing needs (docs/cli.md).
# LEADLINE_PACKAGE_SQLITE_BINARY: a better_sqlite3.node already built for this Node (.ci/node-lts
# passes the one its npm ci built): the script is denied and that file put in place, so SQLite is
# not compiled twice for one Node. The Node 20 run in .ci/run builds it as a user's install does.
prebuilt="${LEADLINE_PACKAGE_SQLITE_BINARY:-}"
build_sqlite=true
if [ -n "$prebuilt" ]; then build_sqlite=false; fi
printf '{ "private": true, "allowScripts": { "better-sqlite3": %s, "core-js": false, "protobufjs": false, "file:%s": false } }\n' \
  "$build_sqlite" "$tarball" >"$app/package.json"
(cd "$app" && npm install --no-audit --no-fund "$tarball") 2>&1 | tee "$work/install.log"
if grep -qi allowScripts "$work/install.log"; then fail "npm install warned about install scripts"; fi
if [ -n "$prebuilt" ]; then
  sqlite_dir="$(cd "$app" && node -p 'require("path").dirname(require.resolve("better-sqlite3/package.json"))')"
  mkdir -p "$sqlite_dir/build/Release"
  cp "$prebuilt" "$sqlite_dir/build/Release/better_sqlite3.node"
fi

cd "$app"
leadline="$app/node_modules/.bin/leadline"
# What the installed copy imports is the bundled, patched driver, not one from elsewhere.
driver="$(cd "$app/node_modules/leadline" && node -e 'console.log(import.meta.resolve("postgres"))' --input-type=module)"
case "$driver" in
  "file://$app/node_modules/leadline/node_modules/postgres/"*) ;;
  *) fail "leadline resolves postgres to $driver, not its bundled copy" ;;
esac
grep -q 'patched by leadline' "$app/node_modules/leadline/node_modules/postgres/src/connection.js" ||
  fail "the installed postgres driver lacks the patch in patches/"
echo "--- npx leadline --help"
npx leadline --help >"$work/help.txt"
for cmd in serve import migrate seed keys; do
  grep -q "^  $cmd" "$work/help.txt" || { cat "$work/help.txt"; fail "--help does not list '$cmd'"; }
done

echo "--- leadline import"
cat >"$work/leads.ndjson" <<'EOF'
{"type":"team","id":1,"name":"Acme","timeZone":"Europe/Berlin"}
{"type":"member","id":1,"teamId":1,"email":"ana@acme.test","name":"Ana Ruiz","role":"admin","pid":"7891"}
{"type":"lead","userId":1,"id":"1001","epoch":1767225600000,"isLead":true,"name":"Zoe Smith"}
{"type":"lead","userId":1,"id":"1002","epoch":1767229200000,"isScan":true,"name":"Max Moll"}
EOF
export LEADLINE_DB="$work/store.db"
unset DATABASE_URL
summary="$("$leadline" import --json "$work/leads.ndjson")"
grep -q '"leads":2' <<<"$summary" || fail "import summary: $summary"
# 4 MiB or more: the records are prepared in a worker thread, from a module of its own that
# must ship (dist/io/import/worker.js). The same records, padded with blank lines.
[ -f "$app/node_modules/leadline/dist/io/import/worker.js" ] || fail "the import worker's module is not in the package"
{ cat "$work/leads.ndjson"; node -e 'process.stdout.write(`${" ".repeat(1023)}\n`.repeat(17 * 1024))'; } >"$work/big.ndjson"
summary="$("$leadline" import --db "$work/big.db" --json "$work/big.ndjson")"
grep -q '"leads":2' <<<"$summary" || fail "import summary (worker thread): $summary"
# seed (and serve --demo) load @faker-js/faker, a runtime dependency for them alone (docs/cli.md).
seeded="$("$leadline" seed --db "$work/seed.db" --teams 1 --members 2 --leads 20 --json)"
grep -q '"leads":20' <<<"$seeded" || fail "seed summary: $seeded"
key="$("$leadline" keys create --member ana@acme.test --legacy-v1 --json | grep -o 'llk_[A-Za-z0-9]*')"

echo "--- leadline serve --port 0"
"$leadline" serve --port 0 >"$work/serve.log" 2>&1 &
server_pid=$!
base=""
for _ in $(seq 100); do
  base="$(grep -o 'links point at http://[^" ]*' "$work/serve.log" | head -1 | sed 's/^links point at //')" || true
  [ -n "$base" ] && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/serve.log"; fail "serve exited"; }
  sleep 0.1
done
[ -n "$base" ] || { cat "$work/serve.log"; fail "serve did not say where it listens"; }
echo "listening at $base"
get() { curl -fsS --max-time 10 "$@"; }
expect() { # <what the body must contain> <curl arguments…>: the body read whole, then checked
  local want="$1" body
  shift
  body="$(get "$@")" || fail "GET ${*: -1} failed"
  grep -qF -- "$want" <<<"$body" || fail "GET ${*: -1} answered without '$want': ${body:0:300}"
}
expect '"ok"' "$base/healthz"
expect '"id":"1002"' -H "Authorization: Bearer $key" "$base/api/pub/leads/getLastLead"
expect '<h1' "$base/docs/v1-reference"                # docs/ found from dist/http/pages.js
expect 'font' "$base/assets/leadline.css"             # src/http/assets/ found from dist/http/
expect 'drawChart' "$base/console/assets/console.js"   # the console's script, found the same way
expect 'uPlot' "$base/console/assets/uplot.js"         # the chart library, from the package's node_modules

kill -TERM "$server_pid"
status=0
wait "$server_pid" || status=$?
server_pid=""
[ "$status" -eq 0 ] || { cat "$work/serve.log"; fail "serve exited $status on SIGTERM"; }
echo "check-package: the installed package works"
