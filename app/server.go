package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/app/admission"
	"github.com/petstore/petstore/app/keychanges"
	"github.com/petstore/petstore/app/media"
	"github.com/petstore/petstore/app/ratelimit"
	"github.com/petstore/petstore/metrics"
	"github.com/petstore/petstore/models"
	"github.com/petstore/petstore/routes"
	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
	"gorm.io/gorm"
)

// Option changes a part NewServer builds; tests use them to control time and to reach the
// service's own key store.
type Option func(*parts)

type parts struct {
	now     func() time.Time
	keys    *models.APIKeyStore
	metrics *metrics.Metrics
	// accessLog gets the line of every request; nil: the service's log.
	accessLog routes.AccessLog
	// staffHashCost is the bcrypt cost of passwords the service sets; 0 is bcrypt's default.
	staffHashCost int
}

// WithClock makes the service read the time from now: rate-limit windows, bans, key expiry and
// the key cache, everywhere (routes.Deps.Now).
func WithClock(now func() time.Time) Option { return func(p *parts) { p.now = now } }

// WithKeyStore makes the service authenticate through keys, so changes made through it
// (revoke, plan, scopes, unban) reach the service's next request. NewKeyStore makes one.
func WithKeyStore(keys *models.APIKeyStore) Option { return func(p *parts) { p.keys = keys } }

// WithMetrics makes the service count its requests, refusals, bans and database pools in m;
// without it, it counts nothing.
func WithMetrics(m *metrics.Metrics) Option { return func(p *parts) { p.metrics = m } }

// WithAccessLog writes the line of every request to log instead of the service's log: serve
// gives it one that writes out its lines in batches (newAccessLog).
func WithAccessLog(log routes.AccessLog) Option { return func(p *parts) { p.accessLog = log } }

// newAccessLog writes the lines of requests to lines in the configured format, through slog.
func newAccessLog(cfg Config, lines *logLines) routes.AccessLog {
	return routes.SlogAccessLog(NewLogger(cfg, lines))
}

// WithStaffHashCost makes the service hash the passwords it sets (a reset's one-time password,
// a changed one) at another bcrypt cost: tests use bcrypt.MinCost, so that a password change
// stays within the request's database deadline under the race detector.
func WithStaffHashCost(cost int) Option { return func(p *parts) { p.staffHashCost = cost } }

// NewKeyStore returns the API key store the service uses on db, reading the time from now.
func NewKeyStore(cfg Config, db *gorm.DB, now func() time.Time) *models.APIKeyStore {
	return models.NewAPIKeyStore(db, models.KeyStoreOptions{Now: now})
}

// NewServer builds the HTTP server on its dependencies; it holds no globals, so tests run as
// many servers as they like in one process. It listens for changes of API keys made by other
// processes until it shuts down; shutting down also writes the keys' last-used times and closes
// the Redis connections.
func NewServer(cfg Config, log *slog.Logger, db *gorm.DB, opts ...Option) *fiber.App {
	p := parts{now: time.Now}
	for _, o := range opts {
		o(&p)
	}
	if p.keys == nil {
		p.keys = NewKeyStore(cfg, db, p.now)
	}
	limiter, redisClient, closeLimiter := newLimiter(cfg, log, p.now)
	gate := admission.New(admission.Config{Keys: p.keys, Limiter: limiter, Now: p.now, CacheTTL: cfg.KeyCacheTTL,
		BanThreshold: cfg.BanThreshold, BanDuration: cfg.BanDuration, Log: log})
	stopListening := listenForKeyChanges(cfg, log, db, p.keys, redisClient, gate.Forget)
	staff := models.NewStaffStore(db)
	if p.staffHashCost != 0 {
		staff = staff.WithHashCost(p.staffHashCost)
	}
	sessions, closeSessions := sessionStorage(cfg)
	replicas := ReplicasOf(db)
	var replicasReady routes.ReadyCheck
	if replicas != nil {
		replicasReady = replicas.Ready
	}
	app := routes.New(fiber.Config{
		AppName:               "petstore",
		ReadTimeout:           cfg.ReadTimeout,
		WriteTimeout:          cfg.WriteTimeout,
		IdleTimeout:           cfg.IdleTimeout,
		DisableStartupMessage: true,
		ReadBufferSize:        cfg.MaxHeaderBytes,
		// Always check, so that with no trusted proxy configured nobody's X-Forwarded-* headers
		// are believed (they also feed c.Protocol() and c.Hostname()).
		EnableTrustedProxyCheck: true,
		TrustedProxies:          cfg.TrustedProxies,
		ProxyHeader:             cfg.ProxyHeader,
		// Without validation fiber takes the header's raw text, even empty, as the client's IP.
		EnableIPValidation: true,
	}, routes.Deps{
		Log:       log,
		AccessLog: p.accessLog,
		DBTimeout: cfg.DBTimeout,
		Now:       p.now,
		Stores: routes.Stores{
			Pets:       models.NewPetStore(db).KeepCounts(cfg.CountsMaxAge, p.now),
			Categories: models.NewCategoryStore(db),
			Orders:     models.NewOrderStore(db),
			Events:     models.NewEventStore(db),
			Webhooks:   newWebhookStore(cfg, db, newWebhookClient(cfg), p.now),
			IdemKeys:   idempotencyStore(cfg, db),
			Staff:      staff,
			Keys:       p.keys,
			Clients:    models.NewClientStore(db),
			Audit:      models.NewAuditStore(db),
		},
		Photos: routes.Photos{Rows: models.NewPhotoStore(db), Media: OpenMedia(cfg, log), Images: media.NewProcessor(decodeBudget),
			MediaURL: cfg.MediaURL},
		Admin: routes.AdminSettings{Sessions: sessions, SessionTimeout: cfg.SessionTimeout, CountBudget: cfg.AdminCountBudget,
			Zone: cfg.Timezone},
		Gate:          gate,
		Limiter:       limiter,
		Metrics:       p.metrics,
		DatabaseReady: func(ctx context.Context) error { return models.Ping(ctx, db) },
		// ReplicasReady is nil without replicas, and /readyz then does not list them.
		ReplicasReady: replicasReady,
		CORSOrigins:   cfg.CORSOrigins,
		PublicURL:     cfg.PublicURL,
		ProductionURL: cfg.ProductionURL,
		StagingURL:    cfg.StagingURL,
	})
	if sqlDB, err := db.DB(); err == nil {
		p.metrics.WatchDB("primary", sqlDB)
	}
	for i, pool := range replicas.Pools() {
		p.metrics.WatchDB(fmt.Sprintf("replica-%d", i+1), pool)
	}
	app.Hooks().OnShutdown(func() error {
		stopListening()
		ctx, cancel := context.WithTimeout(context.Background(), cfg.DBTimeout)
		defer cancel()
		return errors.Join(p.keys.Close(ctx), closeLimiter(), closeSessions())
	})
	return app
}

// decodeBudget is the memory the decoding of uploads may hold at once: with eight 10 MiB uploads
// in flight it keeps the process under 300 MB (docs/performance.md).
const decodeBudget = 128 << 20

// OpenMedia opens the store of the pets' photos: the bucket of PETSTORE_MEDIA_BUCKET, or the
// folder of PETSTORE_MEDIA_DIR. A bucket that cannot be opened (LoadConfig has checked its URL; a
// Config built by hand may not be) fails every photo operation rather than keeping the photos
// in a folder no other instance sees.
func OpenMedia(cfg Config, log *slog.Logger) media.Store {
	if cfg.MediaBucket == "" {
		return media.NewFolder(cfg.MediaDir)
	}
	s3, err := media.ParseS3URL(cfg.MediaBucket)
	if err == nil {
		var store *media.S3
		if store, err = media.NewS3(s3, nil); err == nil {
			return store
		}
	}
	log.Error("PETSTORE_MEDIA_BUCKET is not usable; photos cannot be stored or served", "error", err.Error())
	return media.Unavailable(err)
}

// listenForKeyChanges hears of the changes of API keys that other processes make (the command
// line, the admin pages or a ban on another instance), through the database and through Redis
// when it is configured, and tells forget. Changes made by keys, this process's own store, are
// announced on Redis too (PostgreSQL hears of them from the store's own NOTIFY, other SQLite
// processes from the file).
func listenForKeyChanges(cfg Config, log *slog.Logger, db *gorm.DB, keys *models.APIKeyStore, client *redis.Client, forget func(int64)) (stop func()) {
	src := keychanges.Sources{Log: log}
	if cfg.DatabaseURL != "" {
		src.PostgresURL = cfg.DatabaseURL
	} else {
		src.SQLite, src.Keys = db, keys
	}
	if client != nil {
		src.Redis, src.RedisPrefix = client, cfg.RedisPrefix
		keys.OnChange(keychanges.Publisher(client, cfg.RedisPrefix, log))
	}
	return keychanges.Listen(src, forget)
}

// idempotencyStore keeps Idempotency-Key records. A request's database work ends within
// DBTimeout, so a key still in flight a minute after that was left by an instance that died
// mid-request, and a retry may take it over.
func idempotencyStore(cfg Config, db *gorm.DB) *models.IdempotencyStore {
	return models.NewIdempotencyStore(db, cfg.DBTimeout+time.Minute)
}

// Redis sits on every /v1 request's path, so it gets short timeouts and no retries: a request
// it cannot answer quickly is counted in this instance instead (and a retried script could
// count a request twice). While it is down, it is tried again every redisRetry.
const (
	redisDialTimeout = time.Second
	redisIOTimeout   = 500 * time.Millisecond
	redisRetry       = 5 * time.Second
)

// redisLog carries go-redis's own messages (a failed dial, say) into the service's log, so
// every line stays in its format; serve installs it, as go-redis has one logger per process.
type redisLog struct{ log *slog.Logger }

func (l redisLog) Printf(ctx context.Context, format string, args ...any) {
	l.log.DebugContext(ctx, "redis: "+fmt.Sprintf(format, args...))
}

// newLimiter counts in this instance, or in Redis when REDIS_URL is set, falling back to this
// instance while Redis does not answer. It returns the Redis client too (nil without Redis).
func newLimiter(cfg Config, log *slog.Logger, now func() time.Time) (ratelimit.Limiter, *redis.Client, func() error) {
	local := ratelimit.NewMemory(now)
	client := newRedisClient(cfg, log)
	if client == nil {
		return local, nil, func() error { return nil }
	}
	limiter := ratelimit.NewFallback(ratelimit.NewRedis(client, cfg.RedisPrefix, now), local, log, now, redisRetry)
	// Ask once at start, so an unreachable Redis is in the log and /readyz from the first moment.
	ctx, cancel := context.WithTimeout(context.Background(), 2*redisDialTimeout)
	defer cancel()
	_ = limiter.Ready(ctx)
	return limiter, client, client.Close
}

// newRedisClient connects to REDIS_URL, or returns nil when it is not set.
func newRedisClient(cfg Config, log *slog.Logger) *redis.Client {
	if cfg.RedisURL == "" {
		return nil
	}
	opt, err := redis.ParseURL(cfg.RedisURL)
	if err != nil { // LoadConfig has checked it; a Config built by hand may not be
		log.Error("REDIS_URL is not usable; counting in this instance alone", "error", err.Error())
		return nil
	}
	opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout = redisDialTimeout, redisIOTimeout, redisIOTimeout
	opt.MaxRetries, opt.DialerRetries = -1, 1
	opt.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	return redis.NewClient(opt)
}
