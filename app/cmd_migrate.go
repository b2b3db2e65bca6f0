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
			reportMigration(e.stdout, m)
			return nil
		}
	},
}

// reportMigration says what a migration did, a line for each kind of change.
func reportMigration(w io.Writer, m models.Migration) {
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
	if !did {
		fmt.Fprintln(w, "the schema is up to date: nothing to do")
	}
}
