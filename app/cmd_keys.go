package app

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/petstore/petstore/app/keychanges"
	"github.com/petstore/petstore/models"
)

var keysCommand = command{
	summary:     "issue, list, revoke and unban API keys, and change their plans and scopes",
	needsConfig: true,
	quiet:       true,
	flags: func(fs *flag.FlagSet, e *env) func() error {
		fs.Usage = func() { fmt.Fprint(fs.Output(), keysUsage) }
		return func() error {
			if fs.NArg() == 0 {
				fs.Usage()
				return errors.New("keys: name a subcommand: create, list, revoke, unban, set-plan or set-scopes")
			}
			return runKeys(e, fs.Arg(0), fs.Args()[1:])
		}
	},
}

const keysUsage = `Usage:
  petstore keys create --name NAME --plan free|pro|business|enterprise [--client ID] [--scopes S,S] [--per-minute N] [--per-day N] [--expires RFC3339] [--json]
  petstore keys list [--json]
  petstore keys revoke ID
  petstore keys unban ID
  petstore keys set-plan ID PLAN [--per-minute N] [--per-day N]
  petstore keys set-scopes ID --scopes S,S

create prints the new key once, on standard output (with --json, one JSON object); only its
hash is stored. Without --client the key gets a new client of its name; without --scopes, every
scope (pets:read, pets:write, orders:read, orders:write, webhooks). Enterprise keys need
--per-minute and --per-day; the other plans set their own. Running instances apply a
revocation, a plan or scope change or an unban made here within a second.
Run 'petstore keys <subcommand> --help' for its flags.
`

// keySub is one subcommand of keys: its positional arguments, what it checks before opening
// the database (a mistake in the flags should not wait for a migration), and what it does.
type keySub struct {
	args  []string
	check func() error
	run   func(ctx context.Context, keys *models.APIKeyStore, args []string) error
}

var keySubcommands = []string{"create", "list", "revoke", "unban", "set-plan", "set-scopes"}

func runKeys(e *env, name string, rest []string) error {
	fs := flag.NewFlagSet("keys "+name, flag.ContinueOnError)
	sub, ok := keySubcommand(e, fs, name)
	if !ok {
		fmt.Fprint(e.stderr, keysUsage)
		return fmt.Errorf("keys: unknown subcommand %q%s", name, didYouMean(name, keySubcommands))
	}
	verboseFlag(fs, e)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: petstore keys %s", name)
		for _, a := range sub.args {
			fmt.Fprint(fs.Output(), " ", a)
		}
		fmt.Fprint(fs.Output(), " [flags]\n\nFlags:\n")
		fs.PrintDefaults()
	}
	args, err := parseInterspersed(fs, rest, e)
	if err != nil {
		return err
	}
	if len(args) != len(sub.args) {
		fs.Usage()
		return fmt.Errorf("keys %s: want %s, got %d arguments", name, strings.Join(sub.args, " "), len(args))
	}
	if sub.check != nil {
		if err := sub.check(); err != nil {
			return err
		}
	}
	db, err := OpenDB(e.ctx, e.cfg, e.log)
	if err != nil {
		return err
	}
	defer models.Close(db)
	if err := models.Migrate(e.ctx, db); err != nil {
		return err
	}
	keys := models.NewAPIKeyStore(db, models.KeyStoreOptions{})
	if client := newRedisClient(e.cfg, e.log); client != nil {
		// Instances hear of a change through the database anyway; Redis is the second way.
		keys.OnChange(keychanges.Publisher(client, e.cfg.RedisPrefix, e.log))
		defer client.Close()
	}
	// The audit log records these changes as the command line's.
	err = sub.run(models.WithActor(e.ctx, models.ActorCLI), keys, args)
	var me *models.Error
	if errors.As(err, &me) {
		return fmt.Errorf("keys %s: %s", name, flagNames.Replace(me.Message))
	}
	return err
}

// flagNames names the store's fields as the flags that set them.
var flagNames = strings.NewReplacer("perMinute", "--per-minute", "perDay", "--per-day", "expiresAt", "--expires",
	"scopes:", "--scopes:", "client:", "--client:", "email:", "--email:")

// scopeNames splits a --scopes value; unset gives nil (every scope, for a new key).
func scopeNames(s *string) []string {
	if s == nil {
		return nil
	}
	return strings.Split(*s, ",")
}

// parseInterspersed parses flags wherever they stand among the positional arguments, so
// "set-plan 7 enterprise --per-minute 5000" reads as well as its flags-first form.
func parseInterspersed(fs *flag.FlagSet, args []string, e *env) ([]string, error) {
	var pos []string
	for {
		if err := parseFlags(fs, args, e); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func keySubcommand(e *env, fs *flag.FlagSet, name string) (keySub, bool) {
	switch name {
	case "create":
		n := models.NewAPIKey{}
		var scopes *string
		fs.StringVar(&n.Name, "name", "", "a name that says whose key it is (required)")
		fs.StringVar(&n.Plan, "plan", "", "free, pro, business or enterprise (required)")
		fs.Int64Var(&n.ClientID, "client", 0, "the id of the client the key is for, as 'petstore clients list' shows it; unset makes a client of the key's name")
		fs.Func("scopes", "the key's scopes, comma-separated, e.g. pets:read,orders:read (default every scope)", func(v string) error {
			scopes = &v
			return nil
		})
		fs.IntVar(&n.PerMinute, "per-minute", 0, "requests per minute (enterprise only, required there)")
		fs.IntVar(&n.PerDay, "per-day", 0, "requests per day (enterprise only, required there)")
		expires := fs.String("expires", "", "when the key stops working, RFC 3339 (e.g. 2031-01-01T00:00:00Z); never when empty")
		asJSON := fs.Bool("json", false, "print one JSON object with the key and its details")
		check := func() error {
			if strings.TrimSpace(n.Name) == "" {
				return errors.New("keys create: --name is required: a name that says whose key it is")
			}
			if n.Plan == "" {
				return fmt.Errorf("keys create: --plan is required; the plans are:\n%s", plansText())
			}
			if _, err := models.ParsePlan("plan", n.Plan); err != nil {
				return fmt.Errorf("keys create: --plan %q is not a plan; the plans are:\n%s", n.Plan, plansText())
			}
			return nil
		}
		return keySub{check: check, run: func(ctx context.Context, keys *models.APIKeyStore, _ []string) error {
			if *expires != "" {
				t, err := time.Parse(time.RFC3339, *expires)
				if err != nil {
					return fmt.Errorf("keys create: --expires must be an RFC 3339 time such as 2031-01-01T00:00:00Z, got %q", *expires)
				}
				n.ExpiresAt = &t
			}
			n.Scopes = scopeNames(scopes)
			k, plain, err := keys.Create(ctx, n)
			if err != nil {
				return err
			}
			if *asJSON {
				out := keyView(k, time.Now())
				out.Key = plain
				return writeJSON(e.stdout, out)
			}
			fmt.Fprintln(e.stdout, plain)
			fmt.Fprintf(e.stderr, "created API key %d %q of client %d on %s with the scopes %s; the key is shown only this once, keep it somewhere safe\n",
				k.ID, k.Name, k.ClientID, planText(k), strings.Join(k.Scopes.Strings(), ","))
			return nil
		}}, true
	case "list":
		asJSON := fs.Bool("json", false, "print a JSON array")
		return keySub{run: func(ctx context.Context, keys *models.APIKeyStore, _ []string) error {
			list, err := keys.List(ctx)
			if err != nil {
				return err
			}
			now := time.Now()
			if *asJSON {
				views := make([]keyJSON, len(list))
				for i := range list {
					views[i] = keyView(&list[i], now)
				}
				return writeJSON(e.stdout, views)
			}
			if len(list) == 0 {
				fmt.Fprintln(e.stderr, "no API keys yet; issue one with: petstore keys create --name NAME --plan free")
				return nil
			}
			w := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(w, "ID\tPREFIX\tNAME\tCLIENT\tPLAN\tPER MINUTE\tPER DAY\tSCOPES\tSTATE\tLAST USED\tEXPIRES\tCREATED")
			for i := range list {
				k := &list[i]
				l := k.Limits()
				fmt.Fprintf(w, "%d\t%s\t%s\t%d\t%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Prefix, k.Name, k.ClientID, k.Plan,
					l.PerMinute, l.PerDay, strings.Join(k.Scopes.Strings(), ","), k.State(now), timeText(k.LastUsedAt), timeText(k.ExpiresAt), timeText(&k.CreatedAt))
			}
			return w.Flush()
		}}, true
	case "revoke":
		return keySub{args: []string{"ID"}, run: func(ctx context.Context, keys *models.APIKeyStore, args []string) error {
			id, err := keyID(args[0])
			if err != nil {
				return err
			}
			k, err := keys.Revoke(ctx, id)
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "API key %d %q is revoked since %s\n", k.ID, k.Name, timeText(k.RevokedAt))
			return nil
		}}, true
	case "unban":
		return keySub{args: []string{"ID"}, run: func(ctx context.Context, keys *models.APIKeyStore, args []string) error {
			id, err := keyID(args[0])
			if err != nil {
				return err
			}
			before, err := keys.Get(ctx, id)
			if err != nil {
				return err
			}
			k, err := keys.Unban(ctx, id)
			if err != nil {
				return err
			}
			if !before.Banned(time.Now()) {
				fmt.Fprintf(e.stdout, "API key %d %q was not banned\n", k.ID, k.Name)
				return nil
			}
			fmt.Fprintf(e.stdout, "lifted the ban on API key %d %q\n", k.ID, k.Name)
			return nil
		}}, true
	case "set-plan":
		var perMinute, perDay int
		fs.IntVar(&perMinute, "per-minute", 0, "requests per minute (enterprise only, required there)")
		fs.IntVar(&perDay, "per-day", 0, "requests per day (enterprise only, required there)")
		return keySub{args: []string{"ID", "PLAN"}, run: func(ctx context.Context, keys *models.APIKeyStore, args []string) error {
			id, err := keyID(args[0])
			if err != nil {
				return err
			}
			k, err := keys.SetPlan(ctx, id, args[1], perMinute, perDay)
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "API key %d %q is now on %s\n", k.ID, k.Name, planText(k))
			return nil
		}}, true
	case "set-scopes":
		var scopes *string
		fs.Func("scopes", "the key's scopes from now on, comma-separated, e.g. pets:read,orders:read (required)", func(v string) error {
			scopes = &v
			return nil
		})
		return keySub{args: []string{"ID"}, run: func(ctx context.Context, keys *models.APIKeyStore, args []string) error {
			id, err := keyID(args[0])
			if err != nil {
				return err
			}
			if scopes == nil {
				return errors.New("keys set-scopes: --scopes is required, e.g. --scopes pets:read,orders:read")
			}
			k, err := keys.SetScopes(ctx, id, scopeNames(scopes))
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "API key %d %q now has the scopes %s\n", k.ID, k.Name, strings.Join(k.Scopes.Strings(), ","))
			return nil
		}}, true
	}
	return keySub{}, false
}

func keyID(s string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id < 1 {
		return 0, fmt.Errorf("ID must be a key's number, as 'petstore keys list' shows it; got %q", s)
	}
	return id, nil
}

// keyJSON is a key as the command line prints it: never the secret, except Key once, at
// creation.
type keyJSON struct {
	ID          int64      `json:"id"`
	Key         string     `json:"key,omitempty"`
	Prefix      string     `json:"prefix"`
	Name        string     `json:"name"`
	Client      int64      `json:"client"`
	Scopes      []string   `json:"scopes"`
	Plan        string     `json:"plan"`
	PerMinute   int        `json:"perMinute"`
	PerDay      int        `json:"perDay"`
	State       string     `json:"state"`
	ExpiresAt   *time.Time `json:"expiresAt"`
	RevokedAt   *time.Time `json:"revokedAt"`
	BannedUntil *time.Time `json:"bannedUntil"`
	LastUsedAt  *time.Time `json:"lastUsedAt"`
	CreatedAt   time.Time  `json:"createdAt"`
}

func keyView(k *models.APIKey, now time.Time) keyJSON {
	l := k.Limits()
	return keyJSON{ID: k.ID, Prefix: k.Prefix, Name: k.Name, Client: k.ClientID, Scopes: k.Scopes.Strings(), Plan: string(k.Plan), PerMinute: l.PerMinute,
		PerDay: l.PerDay, State: k.State(now), ExpiresAt: k.ExpiresAt, RevokedAt: k.RevokedAt,
		BannedUntil: k.BannedUntil, LastUsedAt: k.LastUsedAt, CreatedAt: k.CreatedAt}
}

// plansText lists the plans and their limits, one a line, for a message.
func plansText() string {
	var b strings.Builder
	for _, p := range models.Plans {
		if p.Custom {
			fmt.Fprintf(&b, "  %-11s limits of its own: --per-minute N --per-day N\n", p.Plan)
		} else {
			fmt.Fprintf(&b, "  %-11s %d per minute, %d per day\n", p.Plan, p.Limits.PerMinute, p.Limits.PerDay)
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func planText(k *models.APIKey) string {
	l := k.Limits()
	return fmt.Sprintf("plan %s (%d per minute, %d per day)", k.Plan, l.PerMinute, l.PerDay)
}

func timeText(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
