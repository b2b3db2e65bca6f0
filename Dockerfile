# Build: a static, trimmed binary stamped with its version.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X github.com/petstore/petstore/app.Version=${VERSION}" -o /out/petstore .

# Run: no shell, no package manager, a non-root user.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/petstore /petstore
EXPOSE 8080
ENTRYPOINT ["/petstore"]
CMD ["serve"]
