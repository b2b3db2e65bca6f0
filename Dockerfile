# check=error=true

# docker build --build-arg VERSION=$(git describe --tags --always) -t petstore .
# Base images are pinned by tag, for people, and by digest, so a re-pushed tag cannot change
# what we build on; bump both together. The Go version matches go.mod's go line.

# build makes a static (CGO_ENABLED=0), trimmed, stripped binary stamped with its version.
FROM golang:1.26.8-bookworm@sha256:a688600ca24f8a4d3ca77f95b0dd40704a9fc787c826660eb7ba0b641b8b175d AS build
WORKDIR /src
# GOTOOLCHAIN=local: build with this image's Go, never a toolchain fetched at build time.
ENV CGO_ENABLED=0 GOTOOLCHAIN=local
# The module download is its own layer, rebuilt only when go.mod or go.sum change.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# VERSION is what `petstore version` prints and the logs report.
ARG VERSION=dev
RUN go build -trimpath -ldflags "-s -w -X github.com/petstore/petstore/app.Version=${VERSION}" -o petstore . \
    && ./petstore version

# The run stage has no shell and no package manager, runs as nonroot (uid 65532), and carries
# the CA certificates and time zone data of distroless/static.
FROM gcr.io/distroless/static-debian12:nonroot@sha256:b7bb25d9f7c31d2bdd1982feb4dafcaf137703c7075dbe2febb41c24212b946f
COPY --from=build /src/petstore /petstore
USER nonroot:nonroot
# Without DATABASE_URL the service keeps an embedded SQLite file; /data is where a volume goes.
ENV PETSTORE_ADDR=:8080 PETSTORE_DB_PATH=/data/petstore.db
WORKDIR /data
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 CMD ["/petstore", "healthcheck"]
ENTRYPOINT ["/petstore"]
CMD ["serve"]
