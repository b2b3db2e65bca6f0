// Package app is the program: configuration, the database, the server and the subcommands.
package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/petstore/petstore/models"
)

// Version is stamped at build time with -ldflags "-X github.com/petstore/petstore/app.Version=...".
var Version = "dev"

const usage = `petstore: the Pet Store service.

Usage:
  petstore [command] [flags]

Commands:
  serve     run the HTTP service (the default)
  migrate   create or upgrade the database schema, then exit
  version   print the version

Run 'petstore <command> --help' for a command's flags. Configuration comes from environment
variables; see the README.
`

// Run is the whole program; main only calls it. It returns when ctx is cancelled or on
// SIGINT or SIGTERM.
func Run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	cmd, rest := "serve", []string{}
	if len(args) > 1 {
		cmd, rest = args[1], args[2:]
	}
	switch cmd {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return nil
	case "version":
		return parseFlags(newFlags("version", "print the version", stderr), rest, func() error {
			fmt.Fprintln(stdout, "petstore", buildVersion())
			return nil
		})
	case "serve", "migrate":
	default:
		if len(cmd) > 0 && cmd[0] == '-' {
			cmd, rest = "serve", args[1:]
		} else {
			fmt.Fprint(stderr, usage)
			return fmt.Errorf("unknown command %q", cmd)
		}
	}
	cfg, err := LoadConfig(getenv)
	if err != nil {
		return fmt.Errorf("configuration:\n%w", err)
	}
	log := NewLogger(cfg, stderr)
	switch cmd {
	case "migrate":
		fs := newFlags("migrate", "create or upgrade the database schema, then exit", stderr)
		return parseFlags(fs, rest, func() error { return migrate(ctx, cfg, log) })
	default:
		fs := newFlags("serve", "run the HTTP service", stderr)
		return parseFlags(fs, rest, func() error { return serve(ctx, cfg, log) })
	}
}

func newFlags(name, what string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: petstore %s [flags]\n\n%s.\n", name, what)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args and runs the command; --help prints the usage and succeeds.
func parseFlags(fs *flag.FlagSet, args []string, run func() error) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	return run()
}

func buildVersion() string {
	if Version != "dev" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return Version
}

// NewLogger makes the structured logger the configuration asks for.
func NewLogger(cfg Config, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	if cfg.LogFormat == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}

func migrate(ctx context.Context, cfg Config, log *slog.Logger) error {
	db, err := OpenDB(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer closeDB(db)
	if err := models.Migrate(ctx, db); err != nil {
		return err
	}
	log.Info("schema is up to date")
	return nil
}

// serve runs the service until ctx ends, then stops accepting, lets in-flight requests finish
// within the shutdown timeout, and closes the database.
func serve(ctx context.Context, cfg Config, log *slog.Logger) error {
	start := time.Now()
	db, err := OpenDB(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer closeDB(db)
	if err := models.Migrate(ctx, db); err != nil {
		return err
	}
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
	case <-ctx.Done():
	}
	log.Info("shutting down", "timeout", cfg.ShutdownTimeout.String())
	if err := server.ShutdownWithTimeout(cfg.ShutdownTimeout); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	log.Info("stopped")
	return nil
}
