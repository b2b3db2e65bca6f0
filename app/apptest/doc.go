// Package apptest starts the real service for tests, on a real database of either kind (see
// testenv), and talks to it as a client does: every exchange with /v1 is held to the published
// API document. Files by concern: server.go starts a server, client.go sends requests,
// contract.go checks them, admin.go drives the admin pages (headless/ with a real browser),
// hostile.go holds hostile requests and judges the answers, process.go runs the real binary,
// cluster.go (and netfault/, between the service and the database) break the database on purpose.
package apptest
