package app

import (
	"flag"

	"github.com/petstore/petstore/models"
)

var migrateCommand = command{
	summary:     "create or upgrade the database schema, then exit",
	needsConfig: true,
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
			if err := models.Migrate(e.ctx, db); err != nil {
				return err
			}
			e.log.Info("schema is up to date")
			return nil
		}
	},
}
