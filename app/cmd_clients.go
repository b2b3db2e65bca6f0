package app

import (
	"errors"
	"flag"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/petstore/petstore/models"
)

var clientsCommand = command{
	summary:     "add and list the API's clients, which own API keys and orders",
	needsConfig: true,
	quiet:       true,
	flags: func(fs *flag.FlagSet, e *env) func() error {
		fs.Usage = func() { fmt.Fprint(fs.Output(), clientsUsage) }
		return func() error {
			if fs.NArg() == 0 {
				fs.Usage()
				return errors.New("clients: name a subcommand: create or list")
			}
			return runClients(e, fs.Arg(0), fs.Args()[1:])
		}
	},
}

const clientsUsage = `Usage:
  petstore clients create --name NAME [--email ADDRESS] [--json]
  petstore clients list [--json]

A client is an integrator of the API: it owns API keys (issue them with
'petstore keys create --client ID') and the orders they place, and sees only its own orders.
create prints the new client's id on standard output (with --json, one JSON object).
`

// clientJSON is a client as the command line prints it.
type clientJSON struct {
	ID         int64     `json:"id"`
	Name       string    `json:"name"`
	Email      string    `json:"email"`
	Keys       *int      `json:"keys,omitempty"`
	ActiveKeys *int      `json:"activeKeys,omitempty"`
	Orders     *int      `json:"orders,omitempty"`
	CreatedAt  time.Time `json:"createdAt"`
}

func runClients(e *env, name string, rest []string) error {
	fs := flag.NewFlagSet("clients "+name, flag.ContinueOnError)
	verboseFlag(fs, e)
	asJSON := fs.Bool("json", false, "print JSON")
	var n models.NewClient
	switch name {
	case "create":
		fs.StringVar(&n.Name, "name", "", "the integrator's name (required)")
		fs.StringVar(&n.Email, "email", "", "a contact e-mail address")
	case "list":
	default:
		fmt.Fprint(e.stderr, clientsUsage)
		return fmt.Errorf("clients: unknown subcommand %q%s", name, didYouMean(name, []string{"create", "list"}))
	}
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: petstore clients %s [flags]\n\nFlags:\n", name)
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, rest, e); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return fmt.Errorf("clients %s: unexpected arguments: %v", name, fs.Args())
	}
	db, err := OpenDB(e.ctx, e.cfg, e.log)
	if err != nil {
		return err
	}
	defer models.Close(db)
	if err := models.Migrate(e.ctx, db); err != nil {
		return err
	}
	clients := models.NewClientStore(db)
	if name == "create" {
		// The audit log records it as the command line's.
		c, err := clients.Create(models.WithActor(e.ctx, models.ActorCLI), n)
		var me *models.Error
		if errors.As(err, &me) {
			return fmt.Errorf("clients create: %s", flagNames.Replace(me.Message))
		}
		if err != nil {
			return err
		}
		if *asJSON {
			return writeJSON(e.stdout, clientJSON{ID: c.ID, Name: c.Name, Email: c.Email, CreatedAt: c.CreatedAt})
		}
		fmt.Fprintln(e.stdout, c.ID)
		fmt.Fprintf(e.stderr, "created client %d %q; issue it a key with: petstore keys create --client %d --name NAME --plan PLAN\n", c.ID, c.Name, c.ID)
		return nil
	}
	list, err := clients.List(e.ctx, time.Now())
	if err != nil {
		return err
	}
	if *asJSON {
		out := make([]clientJSON, len(list))
		for i := range list {
			c := &list[i]
			out[i] = clientJSON{ID: c.ID, Name: c.Name, Email: c.Email, Keys: &c.Keys, ActiveKeys: &c.ActiveKeys, Orders: &c.Orders, CreatedAt: c.CreatedAt}
		}
		return writeJSON(e.stdout, out)
	}
	if len(list) == 0 {
		fmt.Fprintln(e.stderr, "no clients yet; add one with: petstore clients create --name NAME")
		return nil
	}
	w := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tNAME\tEMAIL\tKEYS\tACTIVE KEYS\tORDERS\tCREATED")
	for _, c := range list {
		email := c.Email
		if email == "" {
			email = "-"
		}
		fmt.Fprintf(w, "%d\t%s\t%s\t%d\t%d\t%d\t%s\n", c.ID, c.Name, email, c.Keys, c.ActiveKeys, c.Orders, timeText(&c.CreatedAt))
	}
	return w.Flush()
}
