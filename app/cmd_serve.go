package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"strconv"
	"syscall"
	"time"

	"github.com/petstore/petstore/metrics"
	"github.com/petstore/petstore/models"
	"github.com/redis/go-redis/v9"
)

var serveCommand = command{
	summary:     "run the HTTP service (the default)",
	needsConfig: true,
	flags: func(fs *flag.FlagSet, e *env) func() error {
		return func() error {
			if err := noArgs(fs); err != nil {
				return err
			}
			return serve(e)
		}
	},
}

// ServeMemoryLimit is the soft limit of the Go heap serve sets unless GOMEMLIMIT gives one: the
// collector then runs before the heap doubles past it, which under a burst of photo uploads (a
// decoded image is tens of MB, and short-lived) keeps the process under 300 MB instead of
// letting garbage grow the heap to twice what is live (docs/performance.md).
const ServeMemoryLimit = 200 << 20

// serve runs the service until the context ends, then stops accepting, lets in-flight requests
// finish within the shutdown timeout, and closes the database.
func serve(e *env) error {
	start := time.Now()
	if e.getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(ServeMemoryLimit)
	}
	// The access log's lines are written out in batches (logLines), the others at once; the last
	// batch when serve returns, after the shutdown has answered the last request.
	lines := newLogLines(e.stderr, logFlushEvery)
	defer lines.Close()
	e.log = NewLogger(e.cfg, lines.Immediate())
	cfg, log := e.cfg, e.log
	// The port first: a service that cannot listen stops before it touches the database, and
	// before a first start prints the admin password the user would then have to find again.
	// A client that connects meanwhile waits for its answer rather than being refused.
	ln, err := listen("PETSTORE_ADDR", cfg.Addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	db, err := OpenDB(e.ctx, cfg, log)
	if err != nil {
		return err
	}
	defer models.Close(db)
	if err := models.Migrate(e.ctx, db); err != nil {
		return err
	}
	if cfg.WebhookSecretKeys.IsDevelopment() {
		log.Warn(warnDevelopmentKey)
	}
	if _, err := sealWebhookSecrets(e.ctx, cfg, log, db); err != nil {
		return err
	}
	if err := ensureAdmin(e, db); err != nil {
		return err
	}
	stopPurging := startPurging(e.ctx, log, idempotencyPurgeEvery, map[string]purge{
		"idempotency records": idempotencyStore(cfg, db).PurgeExpired,
		"events":              models.NewEventStore(db).Purge,
	})
	defer stopPurging()
	m := metrics.New(buildVersion())
	stopDeliveries, err := StartDeliveries(e.ctx, cfg, log, db, DeliveryOptions{Metrics: m})
	if err != nil {
		return err
	}
	// After the HTTP server's drain (deferred later, so run earlier), before the database closes.
	defer stopDeliveries()
	redis.SetLogger(redisLog{log})
	// After migrating: the schema is the primary's to change.
	replicas, err := UseReplicas(e.ctx, db, cfg, log)
	if err != nil {
		return err
	}
	defer replicas.Close()
	server := NewServer(cfg, log, db, WithMetrics(m), WithAccessLog(newAccessLog(cfg, lines)))
	errc := make(chan error, 2)
	if cfg.MetricsAddr != "" {
		stop, err := serveMetrics(cfg.MetricsAddr, m, log, errc)
		if err != nil {
			return err
		}
		// Stopped last, so the drain of the public listener is still observable.
		defer stop()
	}
	if cfg.DebugAddr != "" {
		stop, err := serveDebug(cfg.DebugAddr, log, errc)
		if err != nil {
			return err
		}
		defer stop()
	}
	log.Info("listening", "addr", ln.Addr().String(), "version", buildVersion(), "startup", time.Since(start).String())

	go func() { errc <- server.Listener(ln) }()
	select {
	case err := <-errc:
		return err
	case <-e.ctx.Done():
	}
	log.Info("shutting down", "timeout", cfg.ShutdownTimeout.String())
	if err := server.ShutdownWithTimeout(cfg.ShutdownTimeout); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	log.Info("stopped")
	return nil
}

// listen opens the listener of the variable name's address, and says what to change when the
// address is taken.
func listen(name, addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		host, port, _ := net.SplitHostPort(addr)
		next := ":8081"
		if p, err := strconv.Atoi(port); err == nil && p < 65535 {
			next = net.JoinHostPort(host, strconv.Itoa(p+1))
		}
		return nil, fmt.Errorf("%s=%s: the address is already in use: another program (or another petstore) listens on port %s; stop it, or set %s to another address, such as %s=%s",
			name, addr, port, name, name, next)
	}
	if err != nil {
		return nil, fmt.Errorf("%s=%s: %w", name, addr, err)
	}
	return ln, nil
}

// serveMetrics serves Prometheus's /metrics on a listener of its own, apart from the public
// one, and returns the function that stops it. A failure of the listener goes to errc.
func serveMetrics(addr string, m *metrics.Metrics, log *slog.Logger, errc chan<- error) (stop func(), err error) {
	ln, err := listen("PETSTORE_METRICS_ADDR", addr)
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: m.Handler(), ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second}
	go func() {
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			errc <- fmt.Errorf("metrics listener: %w", err)
		}
	}()
	log.Info("metrics listening", "addr", ln.Addr().String(), "path", "/metrics")
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}, nil
}
