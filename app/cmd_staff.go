package app

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/petstore/petstore/models"
	"gorm.io/gorm"
)

var staffCommand = command{
	summary:     "add staff accounts for the admin pages and set their passwords (create, set-password)",
	needsConfig: true,
	quiet:       true,
	flags: func(fs *flag.FlagSet, e *env) func() error {
		username := fs.String("username", "", "the account's username (2 to 64 of a-z 0-9 . _ -)")
		passwordStdin := fs.Bool("password-stdin", false, "read the password from the first line of standard input (required, so it never shows in the process list)")
		role := fs.String("role", string(models.RoleStaff), "create only: staff (pets and orders) or admin (also categories, API keys and staff)")
		fs.Usage = func() {
			fmt.Fprint(fs.Output(), "Usage:\n  petstore staff create --username U --password-stdin [--role staff|admin]\n"+
				"  petstore staff set-password --username U --password-stdin\n\n"+
				"create adds a staff account for the admin pages (/admin); set-password sets an account's\n"+
				"password and ends its sessions. The password is the first line of standard input.\n\nFlags:\n")
			fs.PrintDefaults()
		}
		return func() error {
			// The subcommand comes before its flags: parse what follows it.
			args := fs.Args()
			if len(args) == 0 || (args[0] != "create" && args[0] != "set-password") {
				fs.Usage()
				if len(args) == 0 {
					return errors.New("staff: the subcommands are create and set-password")
				}
				return fmt.Errorf("staff: the subcommands are create and set-password%s", didYouMean(args[0], []string{"create", "set-password"}))
			}
			sub := args[0]
			if err := parseFlags(fs, args[1:], e); err != nil {
				return err
			}
			if err := noArgs(fs); err != nil {
				return err
			}
			roleGiven := false
			fs.Visit(func(f *flag.Flag) { roleGiven = roleGiven || f.Name == "role" })
			if sub == "set-password" && roleGiven {
				return errors.New("staff set-password: --role is for create only")
			}
			if !*passwordStdin {
				return fmt.Errorf("staff %s: --password-stdin is required", sub)
			}
			password, err := readPassword(e.stdin)
			if err != nil {
				return fmt.Errorf("staff %s: %w", sub, err)
			}
			db, err := OpenDB(e.ctx, e.cfg, e.log)
			if err != nil {
				return err
			}
			defer models.Close(db)
			if err := models.Migrate(e.ctx, db); err != nil {
				return err
			}
			// The audit log records these changes as the command line's.
			ctx, store := models.WithActor(e.ctx, models.ActorCLI), models.NewStaffStore(db)
			if sub == "set-password" {
				st, err := store.SetPassword(ctx, *username, password)
				if err != nil {
					return fmt.Errorf("staff set-password: %s", models.ErrorMessage(err))
				}
				fmt.Fprintf(e.stdout, "set the password of %s %q (id %d); its sessions have ended\n", st.Role, st.Username, st.ID)
				return nil
			}
			st, err := store.Create(ctx, models.NewStaff{Username: *username, Password: password, Role: *role})
			if err != nil {
				return fmt.Errorf("staff create: %s", models.ErrorMessage(err))
			}
			fmt.Fprintf(e.stdout, "created %s %q (id %d)\n", st.Role, st.Username, st.ID)
			return nil
		}
	},
}

// readPassword reads one line, without its line ending.
func readPassword(r io.Reader) (string, error) {
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("read password from standard input: %w", err)
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return "", errors.New("standard input holds no password")
	}
	return line, nil
}

// ensureAdmin gives a database without staff its first admin, so the admin pages can be
// reached at all. A generated password is written once, to stderr, and never logged.
func ensureAdmin(e *env, db *gorm.DB) error {
	password, err := models.NewStaffStore(db).EnsureAdmin(e.ctx, e.cfg.AdminPassword)
	if err != nil {
		return fmt.Errorf("create the first admin: %w", err)
	}
	switch {
	case password == "":
	case e.cfg.AdminPassword != "":
		e.log.Info("created the first admin account", "username", "admin", "password", "from PETSTORE_ADMIN_PASSWORD")
	default:
		fmt.Fprintf(e.stderr, "\nCreated the first admin account for the admin pages (/admin).\n"+
			"  username: admin\n  password: %s\nThis password is shown only now; keep it somewhere safe.\n\n", password)
	}
	return nil
}
