package app

import (
	"flag"
	"fmt"
	"net"
	"time"

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

// serve runs the service until the context ends, then stops accepting, lets in-flight requests
// finish within the shutdown timeout, and closes the database.
func serve(e *env) error {
	start := time.Now()
	cfg, log := e.cfg, e.log
	db, err := OpenDB(e.ctx, cfg, log)
	if err != nil {
		return err
	}
	defer closeDB(db)
	if err := models.Migrate(e.ctx, db); err != nil {
		return err
	}
	if err := ensureAdmin(e, db); err != nil {
		return err
	}
	stopPurging := startPurging(e.ctx, idempotencyStore(cfg, db), log, idempotencyPurgeEvery)
	defer stopPurging()
	redis.SetLogger(redisLog{log})
	server := NewServer(cfg, log, db)
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("PETSTORE_ADDR: %w", err)
	}
	log.Info("listening", "addr", ln.Addr().String(), "version", buildVersion(), "startup", time.Since(start).String())

	errc := make(chan error, 1)
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
