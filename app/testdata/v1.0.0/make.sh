#!/usr/bin/env bash
# Makes the databases of release 1.0.0 that the upgrade test migrates in place: the code of the
# tag v1.0.0, built from git, runs its own `migrate`, `seed` and `keys create` (and places one
# order through its API) against an SQLite file and against a scratch PostgreSQL database,
# which is then dumped as plain SQL. Run it from anywhere inside the repository; it needs Go,
# curl, jq and PostgreSQL's client programs (psql, pg_dump) on 127.0.0.1:5432 (trust).
#
# Output, beside this script:
#   petstore.sqlite          the SQLite file
#   postgres.sql             the PostgreSQL dump, unqualified, to load into any schema
#   keys-sqlite.json,
#   keys-postgres.json       the plain keys 1.0.0 issued, by name, and the id of the order the
#                            "Acme shop" key placed through the API
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(git -C "$here" rev-parse --show-toplevel)
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir "$work/src"
git -C "$repo" archive v1.0.0 | tar -x -C "$work/src"
(cd "$work/src" && go build -o "$work/petstore" .)

pg=postgres://postgres@127.0.0.1:5432
scratch=petstore_fixture_v1_0_0

# fill makes one database with the 1.0.0 binary; its environment selects the store.
fill() {
  local out=$1
  "$work/petstore" migrate
  "$work/petstore" seed --pets 30 --orders 12
  local shop dash old
  shop=$("$work/petstore" keys create --name "Acme shop" --plan pro --json)
  dash=$("$work/petstore" keys create --name "Dashboard" --plan enterprise --per-minute 500 --per-day 20000 --json)
  old=$("$work/petstore" keys create --name "Old app" --plan free --json)
  "$work/petstore" keys revoke "$(jq -r .id <<<"$old")" >/dev/null

  PETSTORE_ADDR=127.0.0.1:18471 "$work/petstore" serve 2>"$work/serve.log" &
  local serve=$!
  for _ in $(seq 50); do curl -sf http://127.0.0.1:18471/healthz >/dev/null && break; sleep 0.2; done
  local key pet order
  key=$(jq -r .key <<<"$shop")
  pet=$(curl -sf "http://127.0.0.1:18471/v1/pets?status=available&limit=1" -H "Authorization: Bearer $key" | jq -r '.[0].id')
  order=$(curl -sf http://127.0.0.1:18471/v1/store/orders -H "Authorization: Bearer $key" \
    -H 'Content-Type: application/json' -H 'Idempotency-Key: fixture-order-1' -d "{\"petId\":$pet}" | jq -r .id)
  kill -TERM $serve
  wait $serve || true

  jq -n --argjson shop "$shop" --argjson dash "$dash" --argjson old "$old" --argjson order "$order" \
    '{keys: {($shop.name): $shop.key, ($dash.name): $dash.key, ($old.name): $old.key}, apiOrderId: $order}' >"$out"
}

rm -f "$here/petstore.sqlite"
PETSTORE_DB_PATH="$work/petstore.db" fill "$here/keys-sqlite.json"
# One file, no write-ahead log beside it.
sqlite_checkpoint() { "$work/petstore" migrate; }
PETSTORE_DB_PATH="$work/petstore.db" sqlite_checkpoint
cp "$work/petstore.db" "$here/petstore.sqlite"

psql -q "$pg/postgres" -c "DROP DATABASE IF EXISTS $scratch" -c "CREATE DATABASE $scratch"
DATABASE_URL="$pg/$scratch?sslmode=disable" fill "$here/keys-postgres.json"
# Plain INSERTs (no COPY) without the schema's name, so a test loads it into a schema of its own.
pg_dump --no-owner --no-privileges --no-comments --inserts --schema=public "$pg/$scratch" |
  grep -v -e "^SELECT pg_catalog.set_config('search_path'" -e '^CREATE SCHEMA public;' -e '^\\restrict' -e '^\\unrestrict' |
  sed -e 's/\bpublic\.//g' >"$here/postgres.sql"
psql -q "$pg/postgres" -c "DROP DATABASE $scratch"
