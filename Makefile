# The README's Quick start builds with `go build -o petstore .` (`make build` is the same build,
# static, stripped and stamped with its version); `make test` runs the whole suite, and CI
# (.ci/run) runs exactly it, so that a green make test on a developer's machine means a green CI.
# What these targets cost is measured, and dated, in docs/performance.md.
GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X github.com/petstore/petstore/app.Version=$(VERSION)

.PHONY: build test generate check-generated lint fuzz api-compat screenshots

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o petstore .

# The whole suite, against the embedded SQLite and a real PostgreSQL (PETSTORE_TEST_DATABASE_URL,
# default the local server). With CI set, a missing PostgreSQL fails instead of skipping.
# The rate-limit tests also use a real Redis (PETSTORE_TEST_REDIS_URL), on the same terms.
# Every test runs in parallel with the others, four at a time: most of them wait on a process, a
# browser or a delivery more than they use a core.
# The race detector instruments the service's code and every library but the embedded SQLite
# (modernc.org/...) and the image codecs (image/..., golang.org/x/image/..., imaging): SQLite's C
# translated to Go does its own locking, and a codec's pixel loops run on one goroutine's image;
# instrumenting them slows the SQLite tests several times over, and the photo and seed tests
# twice over (128 s of CPU against 47), while finding nothing of ours. Races in the service's
# own use of them are still caught on the service's side.
# The timeout only bounds a hung test, so it leaves room for a busy machine.
RACE := -race -gcflags='modernc.org/...=-race=false' -gcflags='image/...=-race=false' \
	-gcflags='golang.org/x/image/...=-race=false' -gcflags='github.com/disintegration/imaging=-race=false'
test: export CGO_ENABLED := 1
test:
	$(GO) test $(RACE) -count=1 -parallel 4 -timeout 30m ./...

# The third-party tools the build runs (staticcheck, gosec, oasdiff, oapi-codegen), pinned in a
# module of their own so their dependencies never reach the service's go.mod or its build.
TOOLS := $(GO) tool -modfile=tools/thirdparty/go.mod

# The generators, the checks and their tools build as released (no cgo, trimmed), like make build,
# the Dockerfile and the tests' binary: one compilation of the standard library and the shared
# dependencies serves them all, where the default settings would make a fresh machine compile
# them once more.
generate check-generated lint api-compat deploycheck: export CGO_ENABLED := 0
generate check-generated lint api-compat deploycheck: export GOFLAGS := -trimpath

# Regenerates every generated file; CI fails when this changes anything committed. The API
# client the tests use (app/apptest/apiclient) is generated from the published document.
generate:
	$(GO) tool templ generate -path views
	$(GO) tool swag init --quiet --dir routes,models --generalInfo api.go --markdownFiles routes --outputTypes json --output docs
	$(GO) run ./tools/openapigen -dir docs
	$(TOOLS) oapi-codegen -generate types,client -package apiclient -o app/apptest/apiclient/apiclient.gen.go docs/openapi.json

# What make generate writes, and all that check-generated compares: any other file, changed or
# new (an untracked out/, a README being edited), is none of its business.
GENERATED := ':(glob)views/**/*_templ.go' docs/swagger.json docs/openapi.json docs/docs.go app/apptest/apiclient

# Fails when regenerating changes a committed generated file or makes one git does not track.
# It only reads the index: no intent-to-add entries, no refresh.
check-generated: generate
	@stale=$$(git --no-optional-locks diff --name-only -- $(GENERATED); \
	          git --no-optional-locks ls-files --others --exclude-standard -- $(GENERATED)); \
	if [ -n "$$stale" ]; then \
	  echo "generated files are stale: run 'make generate' and commit them:"; echo "$$stale"; \
	  git --no-optional-locks --no-pager diff --stat -- $(GENERATED); exit 1; \
	fi

# gosec reads the service's code, not its tests nor generated code; a finding is fixed, or
# justified where it stands with `// #nosec G… -- reason`. It is tools/thirdparty/gosec, gosec's own
# analyzer under x/tools' driver: gosec's command would also build the cloud and AI SDKs of its
# optional autofix, which lint never uses. The driver reads the dependencies from the export data
# this compilation shares, where a go vet tool would type-check each of them from source again;
# -test=false keeps it to the service's code. It is built first, so that a failed build stops
# make lint.
lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt: files above need formatting"; exit 1; }
	$(GO) vet ./...
	$(TOOLS) staticcheck ./...
	@gosec=$$($(GO) -C tools/thirdparty tool -n gosec) && \
	  echo "$$gosec -test=false ./..." && \
	  "$$gosec" -test=false ./...

# The breaking-change gate: docs/openapi.json against the document of the last release in
# docs/releases/ (highest version), with oasdiff; see tools/apicompat and docs/api-guide.md's Versioning.
api-compat:
	$(GO) run ./tools/apicompat -oasdiff "$$($(TOOLS) -n oasdiff)"

# Every fuzz target for FUZZTIME each: by default 2,000 inputs, a few seconds. A count rather than
# a duration: Go 1.26 can end a timed run with a spurious "context deadline exceeded" and no saved
# input (golang/go#75804). A failing input is saved under app/fuzz/testdata/fuzz/ and replayed by
# `make test` from then on; commit it with the fix. The targets have a package of their own:
# go test -fuzz instruments every package its binary links, and the app package's other tests
# link much more (a browser driver, a terminal, a property-testing library). The targets are
# listed with -fuzz set (to match none), so that the listing uses the instrumented build the runs
# use rather than compiling everything once more without instrumentation.
FUZZTIME ?= 2000x
FUZZ_PKGS ?= ./app/fuzz/
fuzz:
	@for pkg in $(FUZZ_PKGS); do \
	  targets=$$($(GO) test -list '^Fuzz' -fuzz '^$$' $$pkg) || { echo "$$targets"; exit 1; }; \
	  for target in $$(echo "$$targets" | grep '^Fuzz'); do \
	    echo "== $$pkg $$target ($(FUZZTIME))"; \
	    $(GO) test -run '^$$' -fuzz "^$$target\$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done

# The Dockerfile (buildkit's linter; its build stage run on a clean copy of HEAD) and
# compose.yaml (compose's loader), in a module of their own so the service's go.mod stays lean.
.PHONY: deploycheck
deploycheck:
	cd .ci/deploycheck && $(GO) vet ./... && $(GO) test -count=1 ./...

# Optional, slow (minutes): build the image with buildah on stand-in base images and run it.
.PHONY: image-standin
image-standin:
	bash .ci/buildah-standin

# Load benchmark of the service against two hand-written fiber + pgx servers and release 1.1.0, with wrk and a Go
# load generator (about five minutes; needs PostgreSQL, installs wrk when absent). Not part of CI;
# see docs/performance.md.
.PHONY: bench
bench:
	bash bench/run.sh

# The browser tests' screenshots of the admin and documentation pages (phone, desktop, dark), kept
# in out/screenshots/<test>/ (out/ is ignored by git); a run takes a few minutes and needs what
# the tests need (PostgreSQL, Redis, Chromium). go test -artifacts names each test's folder only
# in its -v output ("=== ARTIFACTS <test> <folder>"), so the copy reads them from there.
screenshots:
	rm -rf out/_artifacts out/screenshots out/screenshots.log
	mkdir -p out
	$(GO) test -v -count=1 -run 'Browser|SwaggerUI|Redoc' -artifacts -outputdir out ./app/ > out/screenshots.log 2>&1 \
	  || { tail -n 50 out/screenshots.log; echo "make screenshots: the browser tests failed; all of it in out/screenshots.log"; exit 1; }
	@grep '^=== ARTIFACTS ' out/screenshots.log | while read -r _ _ test dir; do \
	  for png in "$$dir"/*.png; do \
	    [ -e "$$png" ] || continue; mkdir -p "out/screenshots/$$test" && cp "$$png" "out/screenshots/$$test/"; \
	  done; \
	done
	rm -rf out/_artifacts
	@echo "screenshots: $$(find out/screenshots -name '*.png' | wc -l) in out/screenshots/<test>/"
