package app

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/petstore/petstore/models"
)

var migrateCommand = command{
	summary:     "create or upgrade the database schema, then exit",
	needsConfig: true,
	quiet:       true,
	flags: func(fs *flag.FlagSet, e *env) func() error {
		return func() error {
			if err := noArgs(fs); err != nil {
				return err
			}
			db, err := OpenDB(e.ctx, e.cfg, e.log)
			if err != nil {
				return err
			}
			defer models.Close(db)
			m, err := models.MigrateReport(e.ctx, db)
			if err != nil {
				return err
			}
			sealed, err := sealWebhookSecrets(e.ctx, e.cfg, e.log, db)
			if err != nil {
				return err
			}
			reportMigration(e.stdout, m, sealed)
			return nil
		}
	},
}

// reportMigration says what a migration did, a line for each kind of change.
func reportMigration(w io.Writer, m models.Migration, sealed models.SecretsSealed) {
	did := false
	say := func(format string, args ...any) {
		fmt.Fprintf(w, format+"\n", args...)
		did = true
	}
	if m.Created {
		say("created the schema")
	}
	if len(m.Tables) > 0 {
		say("added the tables %s", strings.Join(m.Tables, ", "))
	}
	if len(m.Columns) > 0 {
		say("added the columns %s", strings.Join(m.Columns, ", "))
	}
	if len(m.Indexes) > 0 {
		say("added the indexes %s", strings.Join(m.Indexes, ", "))
	}
	if len(m.DroppedIndexes) > 0 {
		say("dropped the indexes %s, which the added ones replace", strings.Join(m.DroppedIndexes, ", "))
	}
	if len(m.Analyzed) > 0 {
		say("gathered the query planner's statistics of the tables %s, which had none", strings.Join(m.Analyzed, ", "))
	}
	if m.QueueVersions > 0 && !m.Created {
		say("applied %d migrations of the job queue's tables", m.QueueVersions)
	}
	if m.KeysGivenClients > 0 {
		say("gave %d API keys of release 1.0.0 a client of their own, and every scope", m.KeysGivenClients)
	}
	if len(m.Categories) > 0 {
		say("created the categories %s", strings.Join(m.Categories, ", "))
	}
	if sealed.Clear > 0 {
		say("encrypted the webhook signing secrets of %d endpoints, kept in the clear by release 1.1", sealed.Clear)
	}
	if sealed.Resealed > 0 {
		say("encrypted the webhook signing secrets of %d endpoints again under the first key of PETSTORE_WEBHOOK_SECRET_KEYS", sealed.Resealed)
	}
	if sealed.Wiped > 0 {
		say("wiped the webhook signing secrets of %d deleted endpoints", sealed.Wiped)
	}
	if !did {
		fmt.Fprintln(w, "the schema is up to date: nothing to do")
	}
}
