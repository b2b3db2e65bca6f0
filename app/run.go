// Package app is the program: configuration, the database, the server and the subcommands.
package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os/signal"
	"runtime/debug"
	"slices"
	"sort"
	"syscall"

	"github.com/agnivade/levenshtein"
)

// Version is stamped at build time with -ldflags "-X github.com/petstore/petstore/app.Version=...".
var Version = "dev"

// command is one subcommand of the binary. Commands that need the database get the checked
// configuration and a logger; the rest run before configuration is read.
type command struct {
	summary string
	// flags declares the command's flags on fs and returns the function that runs it.
	flags func(fs *flag.FlagSet, e *env) func() error
	// needsConfig is false for commands that must work without a valid configuration.
	needsConfig bool
	// quiet commands log only warnings and errors unless -v or PETSTORE_LOG_LEVEL asks for
	// more: their output is their result. serve always logs.
	quiet bool
}

// env is what a command runs with.
type env struct {
	ctx    context.Context
	cfg    Config
	log    *slog.Logger
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
	// verbose is set by -v, on the command or its subcommand.
	verbose bool
}

// commands lists every subcommand; each lives in a file cmd_<name>.go of its own.
var commands = map[string]command{
	"serve":   serveCommand,
	"migrate": migrateCommand,
	"version": versionCommand,
	"staff":   staffCommand,
	"seed":    seedCommand,
	"keys":    keysCommand,
	"clients": clientsCommand,

	// Run by the container image's HEALTHCHECK.
	"healthcheck": healthcheckCommand,
}

func usage(w io.Writer) {
	fmt.Fprint(w, "petstore: the Pet Store service.\n\nUsage:\n  petstore [command] [flags]\n\nCommands:\n")
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(w, "  %-12s %s\n", name, commands[name].summary)
	}
	fmt.Fprint(w, "\nWith no command, petstore serves. Run 'petstore <command> --help' for a command's flags.\n"+
		"Configuration comes from environment variables; see docs/operations.md.\n")
}

// Run is the whole program; main only calls it. It returns when ctx is cancelled or on
// SIGINT or SIGTERM.
func Run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	name, rest := "serve", []string{}
	if len(args) > 1 {
		name, rest = args[1], args[2:]
	}
	if name == "help" && len(rest) > 0 { // petstore help seed: seed's help
		name, rest = rest[0], []string{"--help"}
	}
	if name == "help" || name == "-h" || name == "-help" || name == "--help" {
		usage(stdout)
		return nil
	}
	cmd, ok := commands[name]
	if !ok {
		usage(stderr)
		return fmt.Errorf("unknown command %q%s", name, didYouMean(name, slices.Collect(maps.Keys(commands))))
	}
	e := &env{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: petstore %s [flags]\n\n%s.\n\nFlags:\n", name, cmd.summary)
		fs.PrintDefaults()
	}
	run := cmd.flags(fs, e)
	if cmd.quiet {
		verboseFlag(fs, e)
	}
	if err := parseFlags(fs, rest, e); err != nil {
		return helpShown(err)
	}
	if cmd.needsConfig {
		cfg, err := LoadConfig(getenv)
		if err != nil {
			return fmt.Errorf("configuration:\n%w", err)
		}
		e.cfg, e.log = cfg, NewLogger(cfg, stderr)
		if cmd.quiet && getenv("PETSTORE_LOG_LEVEL") == "" {
			e.log = slog.New(quietHandler{e.log.Handler(), &e.verbose})
		}
	}
	return helpShown(run())
}

// errHelp says a command printed its help as asked: the program exits 0.
var errHelp = errors.New("help shown")

func helpShown(err error) error {
	if errors.Is(err, errHelp) {
		return nil
	}
	return err
}

// parseFlags parses args with fs, as the go command does: -h or --help prints fs.Usage on
// standard output and returns errHelp; a usage error prints it on standard error.
func parseFlags(fs *flag.FlagSet, args []string, e *env) error {
	usage := fs.Usage
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.Usage = usage
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.SetOutput(e.stdout)
		fs.Usage()
		return errHelp
	case err != nil:
		fs.SetOutput(e.stderr)
		fs.Usage()
		return err
	}
	fs.SetOutput(e.stderr)
	return nil
}

// verboseFlag declares -v, which brings a quiet command's log back.
func verboseFlag(fs *flag.FlagSet, e *env) {
	fs.BoolVar(&e.verbose, "v", false, "verbose: write the log on standard error (PETSTORE_LOG_LEVEL does so too)")
}

// quietHandler passes on only warnings and errors until *verbose is set.
type quietHandler struct {
	slog.Handler
	verbose *bool
}

func (h quietHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return (*h.verbose || l >= slog.LevelWarn) && h.Handler.Enabled(ctx, l)
}

func (h quietHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return quietHandler{h.Handler.WithAttrs(attrs), h.verbose}
}

func (h quietHandler) WithGroup(name string) slog.Handler {
	return quietHandler{h.Handler.WithGroup(name), h.verbose}
}

// didYouMean names the one of names nearest to a mistyped one, as the go command and git do,
// for a slip of a letter or two ("key" for "keys"); empty when none is that near.
func didYouMean(name string, names []string) string {
	best, nearest := "", 3
	for _, n := range slices.Sorted(slices.Values(names)) {
		if d := levenshtein.ComputeDistance(name, n); d < nearest {
			best, nearest = n, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", best)
}

// noArgs refuses positional arguments for commands that take none.
func noArgs(fs *flag.FlagSet) error {
	if fs.NArg() > 0 {
		fs.Usage()
		return fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	return nil
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
