package app

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/petstore/petstore/models"
	"github.com/petstore/petstore/routes"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/plugin/dbresolver"
)

// replicaRetry is how long a replica that failed gets no reads before it is tried again.
const replicaRetry = 5 * time.Second

// Replicas are the read replicas of DATABASE_REPLICA_URLS in use on a database handle.
type Replicas struct {
	dbs       []*gorm.DB
	pools     []*sql.DB
	downUntil []atomic.Int64 // unix nanoseconds; a replica gets reads again after it
	next      atomic.Uint64
	log       *slog.Logger
}

// UseReplicas opens the replicas of cfg.DatabaseReplicaURLs and gives db's reads that the stores
// allow there (models.ReplicaResolver) to them, in turn; every other read, every read inside a
// transaction and every write stays on the primary. A replica that fails (it cannot be reached, or it shuts down) gets no
// reads for a few seconds; with none answering, reads go to the primary. Run migrations before:
// the schema is the primary's to change. It returns nil when no replica is configured.
func UseReplicas(ctx context.Context, db *gorm.DB, cfg Config, log *slog.Logger) (*Replicas, error) {
	if len(cfg.DatabaseReplicaURLs) == 0 {
		return nil, nil
	}
	r := &Replicas{log: log, downUntil: make([]atomic.Int64, len(cfg.DatabaseReplicaURLs))}
	dialectors := make([]gorm.Dialector, 0, len(cfg.DatabaseReplicaURLs))
	for i, u := range cfg.DatabaseReplicaURLs {
		rcfg := cfg
		rcfg.DatabaseURL = u
		rdb, err := OpenDB(ctx, rcfg, log.With("replica", i+1))
		if err != nil {
			r.Close()
			return nil, fmt.Errorf("DATABASE_REPLICA_URLS (replica %d): %w", i+1, err)
		}
		pool, err := rdb.DB()
		if err != nil {
			r.Close()
			return nil, err
		}
		r.dbs, r.pools = append(r.dbs, rdb), append(r.pools, pool)
		dialectors = append(dialectors, postgres.New(postgres.Config{Conn: pool}))
	}
	// The primary goes last in the list: dbresolver skips the policy when it has one replica, and
	// the policy needs the primary at hand to fall back on.
	primary, err := db.DB()
	if err != nil {
		r.Close()
		return nil, err
	}
	dialectors = append(dialectors, postgres.New(postgres.Config{Conn: primary}))
	resolver := dbresolver.Register(dbresolver.Config{Replicas: dialectors, Policy: r}, models.ReplicaResolver)
	if err := db.Use(resolver); err != nil {
		r.Close()
		return nil, fmt.Errorf("route reads to the replicas: %w", err)
	}
	if err := db.Use(r); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// ReplicasOf returns the replicas UseReplicas set up on db, or nil.
func ReplicasOf(db *gorm.DB) *Replicas {
	r, _ := db.Config.Plugins[replicasPlugin].(*Replicas)
	return r
}

const replicasPlugin = "petstore:replicas"

// Name and Initialize make Replicas a GORM plugin: ReplicasOf finds it on the handle, and it
// watches the outcome of every read.
func (r *Replicas) Name() string { return replicasPlugin }

func (r *Replicas) Initialize(db *gorm.DB) error {
	if err := db.Callback().Query().After("gorm:query").Register(replicasPlugin, r.observe); err != nil {
		return err
	}
	return db.Callback().Row().After("gorm:row").Register(replicasPlugin, r.observe)
}

// observe benches a replica whose read failed because the replica is gone, so the next reads
// go elsewhere.
func (r *Replicas) observe(tx *gorm.DB) {
	if tx.Error == nil || !replicaGone(tx.Error) {
		return
	}
	for i, p := range r.pools {
		if gorm.ConnPool(p) == tx.Statement.ConnPool {
			r.bench(i, tx.Error)
		}
	}
}

func (r *Replicas) bench(i int, err error) {
	if r.downUntil[i].Swap(time.Now().Add(replicaRetry).UnixNano()) < time.Now().UnixNano() {
		r.log.Warn("replica does not answer; its reads go elsewhere", "replica", i+1, "error", err.Error())
	}
}

// Resolve picks the pool for one read (dbresolver's Policy): the next replica in turn that is
// not benched, else the primary, which UseReplicas puts last.
func (r *Replicas) Resolve(pools []gorm.ConnPool) gorm.ConnPool {
	now := time.Now().UnixNano()
	n := uint64(len(r.pools))
	start := r.next.Add(1)
	for k := range n {
		if i := (start + k) % n; r.downUntil[i].Load() <= now {
			return pools[i]
		}
	}
	return pools[len(pools)-1]
}

// Ready checks every replica, benching those that do not answer and restoring those that do.
// A missing replica leaves the instance ready (its reads go elsewhere) but shows in /readyz.
func (r *Replicas) Ready(ctx context.Context) error {
	var gone []string
	for i, p := range r.pools {
		if err := p.PingContext(ctx); err != nil {
			r.bench(i, err)
			gone = append(gone, fmt.Sprint(i+1))
			continue
		}
		r.downUntil[i].Store(0)
	}
	if len(gone) > 0 {
		return routes.Degraded{Reason: fmt.Sprintf("replica %s of %d does not answer; reads go to the others or the primary",
			strings.Join(gone, ", "), len(r.pools))}
	}
	return nil
}

// Pools are the replicas' connection pools, in the order of DATABASE_REPLICA_URLS.
func (r *Replicas) Pools() []*sql.DB {
	if r == nil {
		return nil
	}
	return r.pools
}

// Close closes the replicas' pools.
func (r *Replicas) Close() {
	if r == nil {
		return
	}
	for _, db := range r.dbs {
		models.Close(db)
	}
}

// replicaGone tells a replica that cannot serve (unreachable, shutting down, refusing
// connections) from a failure of the query itself.
func replicaGone(err error) bool {
	var connErr *pgconn.ConnectError
	var netErr net.Error
	var pgErr *pgconn.PgError
	switch {
	// A connection cut mid-read (io.ErrUnexpectedEOF) is how a crashed server shows first.
	case errors.Is(err, driver.ErrBadConn), errors.As(err, &connErr), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return true
	case errors.As(err, &pgErr):
		// Class 08: connection exception; 57P01-57P03: shutting down or not accepting connections.
		return strings.HasPrefix(pgErr.Code, "08") || strings.HasPrefix(pgErr.Code, "57P")
	case errors.As(err, &netErr):
		return !netErr.Timeout()
	}
	return false
}
