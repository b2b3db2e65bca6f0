package app

import (
	"flag"
	"fmt"
	"time"

	"github.com/petstore/petstore/models"
)

var seedCommand = command{
	summary:     "fill the database with demo pets and orders (up to the numbers given; safe to run again)",
	needsConfig: true,
	flags: func(fs *flag.FlagSet, e *env) func() error {
		pets := fs.Int("pets", 1000, "the number of pets the database holds afterwards, at least")
		orders := fs.Int("orders", -1, "the number of orders it holds afterwards, at least (default: half of --pets); each goes onto a pet this run adds")
		return func() error {
			if err := noArgs(fs); err != nil {
				return err
			}
			if *orders < 0 {
				*orders = *pets / 2
			}
			if *pets < 0 || *orders > *pets {
				fs.Usage()
				return fmt.Errorf("--pets must be 0 or more, and --orders at most --pets (one order per seeded pet); got --pets %d --orders %d", *pets, *orders)
			}
			db, err := OpenDB(e.ctx, e.cfg, e.log)
			if err != nil {
				return err
			}
			defer models.Close(db)
			if err := models.Migrate(e.ctx, db); err != nil {
				return err
			}
			start := time.Now()
			res, err := models.Seed(e.ctx, db, models.SeedOptions{Pets: *pets, Orders: *orders})
			if err != nil {
				return fmt.Errorf("seed: %w", err)
			}
			fmt.Fprintf(e.stdout, "added %d pets, %d orders and %d status changes in %s; the database holds %d pets and %d orders\n",
				res.PetsAdded, res.OrdersAdded, res.ChangesAdded, time.Since(start).Round(time.Millisecond), res.Pets, res.Orders)
			return nil
		}
	},
}
