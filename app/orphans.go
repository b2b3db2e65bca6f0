package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/petstore/petstore/app/media"
	"github.com/petstore/petstore/models"
	"github.com/riverqueue/river"
)

// OrphanAge is how long a blob no photo row names is kept: an upload stores its blobs before its
// row, so a young one may belong to an upload still under way; a crash between the two leaves
// one for good.
const OrphanAge = 24 * time.Hour

// orphanSweepEvery is how often the queue's leader enqueues the sweep.
const orphanSweepEvery = time.Hour

// SweepOrphans removes the blobs stored before now - OrphanAge that no photo row names, deleted
// pets' photos included, and says how many went.
func SweepOrphans(ctx context.Context, store media.Store, photos *models.PhotoStore, now time.Time) (int, error) {
	var batch []string
	removed := 0
	flush := func() error {
		named, err := photos.PhotoKeys(ctx, batch)
		if err != nil {
			return err
		}
		for _, k := range batch {
			if named[k] {
				continue
			}
			if err := store.Delete(ctx, k); err != nil {
				return err
			}
			removed++
		}
		batch = batch[:0]
		return nil
	}
	err := store.List(ctx, now.Add(-OrphanAge), func(key string) error {
		if batch = append(batch, key); len(batch) == 500 {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	return removed, err
}

// orphanSweep is the queue's periodic job that runs SweepOrphans.
type orphanSweep struct{}

func (orphanSweep) Kind() string { return "media_orphan_sweep" }

type orphanWorker struct {
	river.WorkerDefaults[orphanSweep]
	store  media.Store
	photos *models.PhotoStore
	now    func() time.Time
	log    *slog.Logger
}

func (w *orphanWorker) Work(ctx context.Context, _ *river.Job[orphanSweep]) error {
	n, err := SweepOrphans(ctx, w.store, w.photos, w.now())
	if n > 0 {
		w.log.Info("removed photos no pet names", "count", n)
	}
	return err
}

// orphanJobs is the sweep, enqueued hourly (and at start) by whichever instance leads the queue.
func orphanJobs() []*river.PeriodicJob {
	return []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(orphanSweepEvery),
		func() (river.JobArgs, *river.InsertOpts) { return orphanSweep{}, nil },
		&river.PeriodicJobOpts{RunOnStart: true})}
}
