package app

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/petstore/petstore/models"
)

var seedCommand = command{
	summary:     "fill the database with demo pets and orders (up to the numbers given; safe to run again)",
	needsConfig: true,
	quiet:       true,
	flags: func(fs *flag.FlagSet, e *env) func() error {
		pets := fs.Int("pets", 1000, "the database holds at least `N` pets afterwards")
		orders := -1 // unset: half of --pets
		fs.Func("orders", "the database holds at least `N` orders afterwards (default half of --pets); each goes onto a pet this run adds", func(v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return errors.New("want a number, 0 or more")
			}
			orders = n
			return nil
		})
		return func() error {
			if err := noArgs(fs); err != nil {
				return err
			}
			if orders < 0 {
				orders = *pets / 2
			}
			if *pets < 0 || orders > *pets {
				fs.Usage()
				return fmt.Errorf("--pets must be 0 or more, and --orders at most --pets (one order per seeded pet); got --pets %d --orders %d", *pets, orders)
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
			opt := models.SeedOptions{Pets: *pets, Orders: orders}
			if terminal(e.stderr) {
				opt.Progress = seedProgress(e.stderr, start)
			}
			res, err := models.Seed(e.ctx, db, opt)
			if opt.Progress != nil {
				fmt.Fprint(e.stderr, "\r\033[K") // the progress line gives way to the summary
			}
			if err != nil {
				return fmt.Errorf("seed: %w", err)
			}
			photos, err := seedPhotos(models.WithMediaBase(e.ctx, mediaBase(e.cfg)), db, OpenMedia(e.cfg, e.log))
			if err != nil {
				return fmt.Errorf("seed photos: %w", err)
			}
			fmt.Fprintf(e.stdout, "added %d pets, %d orders, %d status changes and %d photos in %s; the database holds %d pets and %d orders\n",
				res.PetsAdded, res.OrdersAdded, res.ChangesAdded, photos, time.Since(start).Round(time.Millisecond), res.Pets, res.Orders)
			return nil
		}
	},
}

// terminal says whether w is a terminal, where progress can be redrawn on one line; a file or
// a pipe gets none.
func terminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isatty.IsTerminal(f.Fd())
}

// seedProgress redraws one line on w: how many pets are written, of how many, and how long
// it has taken.
func seedProgress(w io.Writer, start time.Time) func(added, total int) {
	return func(added, total int) {
		fmt.Fprintf(w, "\r\033[Kseeding: %d of %d pets (%d %%), %s", added, total, added*100/total, time.Since(start).Round(time.Second))
	}
}
