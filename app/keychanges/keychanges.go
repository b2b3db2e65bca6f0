// Package keychanges carries the news that an API key changed (revoked, plan, limits, scopes,
// ban, unban) from the process that changed it to every running instance, within a second:
// on PostgreSQL through LISTEN/NOTIFY (the key store notifies in the change's own transaction),
// on the embedded SQLite by watching the file's change counter (PRAGMA data_version, which
// moves when another process commits), and through Redis pub/sub as well when Redis is
// configured. Instances keep their caches' TTL as the safety net for news that never arrives.
package keychanges

import (
	"context"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/petstore/petstore/models"
	"github.com/redis/go-redis/v9"
	"gorm.io/gorm"
)

// Sources are what an instance listens to; the zero value of each part leaves it out.
type Sources struct {
	// PostgresURL is the database whose notifications to listen to.
	PostgresURL string
	// SQLite is the embedded database to watch, and Keys its key store.
	SQLite *gorm.DB
	Keys   *models.APIKeyStore
	// Redis, with the deployment's key prefix, carries the news too.
	Redis       redis.UniversalClient
	RedisPrefix string
	Log         *slog.Logger
}

// Timings of listening.
const (
	// sqlitePoll is how often the SQLite file's change counter is read: one cheap PRAGMA.
	sqlitePoll = 200 * time.Millisecond
	// sqliteSlack is how far before the latest change seen a watch looks again: a change is
	// stamped before its transaction waits for the file's lock (PETSTORE_DB_TIMEOUT at most
	// in practice), so it may commit after a later-stamped one.
	sqliteSlack = 10 * time.Second
	// retryFirst and retryMost bound the wait before listening again after a failure.
	retryFirst = 500 * time.Millisecond
	retryMost  = 5 * time.Second
	// publishTimeout bounds a Redis publish, on the path of the change that makes it.
	publishTimeout = 2 * time.Second
)

// Listen hears of key changes from every source given and tells deliver the key's id, or 0 when
// any key may have changed unheard: each source says 0 whenever it starts listening, at first
// and after an interruption. It listens in the background until stop is called.
func Listen(src Sources, deliver func(id int64)) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	run := func(f func(context.Context)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(ctx)
		}()
	}
	if src.PostgresURL != "" {
		run(func(ctx context.Context) {
			retrying(ctx, src.Log, "PostgreSQL LISTEN", func() error { return listenPostgres(ctx, src.PostgresURL, deliver) })
		})
	}
	if src.SQLite != nil && src.Keys != nil {
		run(func(ctx context.Context) { watchSQLite(ctx, src.SQLite, src.Keys, src.Log, deliver) })
	}
	if src.Redis != nil {
		run(func(ctx context.Context) { listenRedis(ctx, src.Redis, channel(src.RedisPrefix), src.Log, deliver) })
	}
	return func() {
		cancel()
		wg.Wait()
	}
}

// Publisher returns the function that announces a change on Redis, for processes that change
// keys (the key store's OnChange).
func Publisher(client redis.UniversalClient, prefix string, log *slog.Logger) func(id int64) {
	ch := channel(prefix)
	return func(id int64) {
		ctx, cancel := context.WithTimeout(context.Background(), publishTimeout)
		defer cancel()
		if err := client.Publish(ctx, ch, strconv.FormatInt(id, 10)).Err(); err != nil {
			log.Warn("API key change not published on Redis; instances that do not hear of it through the database apply it within PETSTORE_KEY_CACHE_TTL",
				"key_id", id, "error", err.Error())
		}
	}
}

func channel(prefix string) string { return prefix + "api-keys" }

// retrying runs listen again after each failure, with a growing pause, until ctx ends; it logs
// the first failure of an outage and the recovery.
func retrying(ctx context.Context, log *slog.Logger, what string, listen func() error) {
	wait := retryFirst
	failing := false
	for {
		start := time.Now()
		err := listen()
		if ctx.Err() != nil {
			return
		}
		if time.Since(start) > retryMost {
			wait = retryFirst // it ran a while: a new outage
		}
		if !failing {
			log.Warn("API key changes: "+what+" failed; listening again shortly, meanwhile changes made elsewhere apply within PETSTORE_KEY_CACHE_TTL", "error", err.Error())
		}
		failing = true
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, retryMost)
	}
}

// listenPostgres listens on the key store's channel until the connection fails. Changes made
// before it listened may have been missed, so it first says any key may have changed.
func listenPostgres(ctx context.Context, url string, deliver func(int64)) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = conn.Close(closeCtx)
	}()
	var schema string
	if err := conn.QueryRow(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{models.KeyChangesChannel(schema)}.Sanitize()); err != nil {
		return err
	}
	deliver(0)
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		if id, err := strconv.ParseInt(n.Payload, 10, 64); err == nil {
			deliver(id)
		}
	}
}

// watchSQLite reads the file's change counter; when another process has committed, it reads
// which keys changed since the last look. A key's own instance hears of its changes at once
// (the key store's OnChange); this is for the other processes on the file.
func watchSQLite(ctx context.Context, db *gorm.DB, keys *models.APIKeyStore, log *slog.Logger, deliver func(int64)) {
	// seen is each recently changed key's last change delivered, so a change is delivered once
	// although every look goes back sqliteSlack.
	seen := map[int64]time.Time{}
	var latest time.Time
	look := func(first bool) error {
		changes, err := keys.ChangedSince(ctx, latest.Add(-sqliteSlack))
		if err != nil {
			return err
		}
		for _, c := range changes {
			if prev, ok := seen[c.ID]; !ok || !prev.Equal(c.UpdatedAt) {
				seen[c.ID] = c.UpdatedAt
				if !first {
					deliver(c.ID)
				}
			}
			if c.UpdatedAt.After(latest) {
				latest = c.UpdatedAt
			}
		}
		for id, at := range seen {
			if at.Before(latest.Add(-sqliteSlack)) {
				delete(seen, id)
			}
		}
		return nil
	}
	version := int64(-1)
	tick := time.NewTicker(sqlitePoll)
	defer tick.Stop()
	failing := false
	for {
		var v int64
		err := db.WithContext(ctx).Raw("PRAGMA data_version").Scan(&v).Error
		if err == nil && v != version {
			if err = look(version == -1); err == nil {
				if version == -1 {
					deliver(0)
				}
				version = v
			}
		}
		switch {
		case ctx.Err() != nil:
			return
		case err != nil && !failing:
			log.Warn("API key changes: reading the database's change counter failed; changes made by other processes apply within PETSTORE_KEY_CACHE_TTL", "error", err.Error())
			failing = true
		case err == nil:
			failing = false
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// listenRedis receives the changes published on Redis. After a reconnection (the client
// subscribes again by itself) any key may have changed unheard.
func listenRedis(ctx context.Context, client redis.UniversalClient, ch string, log *slog.Logger, deliver func(int64)) {
	ps := client.Subscribe(ctx, ch)
	// A read in progress does not see ctx end; closing the subscription ends it.
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
		case <-done:
		}
		_ = ps.Close()
	}()
	failing := false
	for {
		msg, err := ps.Receive(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			if !failing {
				log.Warn("API key changes: Redis subscription failed; subscribing again", "error", err.Error())
				failing = true
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(retryFirst):
			}
			continue
		}
		failing = false
		switch m := msg.(type) {
		case *redis.Subscription:
			if m.Kind == "subscribe" {
				deliver(0)
			}
		case *redis.Message:
			if id, err := strconv.ParseInt(m.Payload, 10, 64); err == nil {
				deliver(id)
			}
		}
	}
}
