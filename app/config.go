package app

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	// The store's time zone must load on a machine or image without the system's zoneinfo.
	_ "time/tzdata"

	"github.com/petstore/petstore/app/media"
	"github.com/petstore/petstore/app/webhooks"
	"github.com/petstore/petstore/models"
	"github.com/petstore/petstore/models/secretbox"
	"github.com/petstore/petstore/routes/apiservers"
	"github.com/redis/go-redis/v9"
)

// Config is the service's configuration, read from environment variables. The operations
// guide's configuration table (docs/operations.md) lists the same variables; keep the two in step.
type Config struct {
	Addr              string        // PETSTORE_ADDR
	DatabaseURL       string        // DATABASE_URL; empty selects the embedded SQLite store
	DBPath            string        // PETSTORE_DB_PATH
	RedisURL          string        // REDIS_URL; empty keeps rate-limit counters and sessions in this instance
	DBMaxOpenConns    int           // PETSTORE_DB_MAX_OPEN_CONNS
	DBMaxIdleConns    int           // PETSTORE_DB_MAX_IDLE_CONNS
	DBConnMaxLifetime time.Duration // PETSTORE_DB_CONN_MAX_LIFETIME
	DBTimeout         time.Duration // PETSTORE_DB_TIMEOUT: the most one request may wait on the database
	LogLevel          slog.Level    // PETSTORE_LOG_LEVEL
	LogFormat         string        // PETSTORE_LOG_FORMAT: json or text
	ReadTimeout       time.Duration // PETSTORE_READ_TIMEOUT
	WriteTimeout      time.Duration // PETSTORE_WRITE_TIMEOUT
	IdleTimeout       time.Duration // PETSTORE_IDLE_TIMEOUT
	ShutdownTimeout   time.Duration // PETSTORE_SHUTDOWN_TIMEOUT
	ProductionURL     string        // PETSTORE_PRODUCTION_URL: production's address without /v1, a server of the API document
	StagingURL        string        // PETSTORE_STAGING_URL: staging's address without /v1, a server of the API document
	AdminPassword     string        // PETSTORE_ADMIN_PASSWORD: the first admin's password; empty generates one
	SessionTimeout    time.Duration // PETSTORE_SESSION_TIMEOUT: a staff session ends after this long unused
	AdminCountBudget  time.Duration // PETSTORE_ADMIN_COUNT_BUDGET: database time an admin table may spend on each count before it estimates
	RedisPrefix       string        // PETSTORE_REDIS_PREFIX: starts every Redis key of this deployment
	BanThreshold      float64       // PETSTORE_BAN_THRESHOLD: refusals within a minute that ban a key, as a multiple of its per-minute limit
	BanDuration       time.Duration // PETSTORE_BAN_DURATION
	KeyCacheTTL       time.Duration // PETSTORE_KEY_CACHE_TTL: how long an instance trusts its copy of an API key
	CountsMaxAge      time.Duration // PETSTORE_COUNTS_MAX_AGE: how long an instance keeps the tags in use, the inventory and the admin's tag suggestions; 0 counts on each call
	// PETSTORE_TIMEZONE: the store's time zone (an IANA name), in which the admin pages and their
	// CSV show every time.
	Timezone *time.Location
	// PETSTORE_METRICS_ADDR: where Prometheus scrapes /metrics; empty serves no metrics.
	MetricsAddr string
	// PETSTORE_DEBUG_ADDR: where Go's profiles are served (/debug/pprof/), on the loopback
	// interface unless it names a host; empty serves none.
	DebugAddr string
	// DATABASE_REPLICA_URLS: PostgreSQL read replicas that serve the catalogue's reads.
	DatabaseReplicaURLs []string
	MaxHeaderBytes      int      // PETSTORE_MAX_HEADER_BYTES: request line and headers together
	TrustedProxies      []string // PETSTORE_TRUSTED_PROXIES: IPs and CIDRs whose ProxyHeader is believed
	ProxyHeader         string   // PETSTORE_PROXY_HEADER: where a trusted proxy puts the client's IP
	CORSOrigins         []string // PETSTORE_CORS_ORIGINS: browser origins allowed to call /v1; none by default
	// PETSTORE_PUBLIC_URL: where clients reach the service, without /v1; the absolute URLs of
	// Link and Location start with it. Empty: the request's scheme and host, as far as trusted.
	PublicURL string
	// PETSTORE_MEDIA_DIR: the folder that keeps the photos when no bucket is named; default
	// media beside the SQLite file.
	MediaDir string
	// PETSTORE_MEDIA_BUCKET: an S3-compatible bucket that keeps the photos instead, shared by
	// every instance: s3://bucket?endpoint=https://host:port (credentials: the AWS variables).
	MediaBucket string
	// PETSTORE_MEDIA_URL: where clients fetch the photos (a CDN, a public bucket), without a
	// trailing slash; empty: the service's own /media/ under its public address.
	MediaURL string
	// PETSTORE_WEBHOOK_ALLOW_HTTP: webhook endpoints may be plain http (development, tests).
	WebhookAllowHTTP bool
	// PETSTORE_WEBHOOK_ALLOW_PRIVATE: webhook endpoints may be on loopback and private networks
	// (development, tests); never in production, where it lets clients reach the service's own.
	WebhookAllowPrivate bool
	// PETSTORE_WEBHOOK_RETRY_DELAYS: the waits after each failed delivery attempt; after the
	// last, the delivery has failed.
	WebhookRetryDelays []time.Duration
	// PETSTORE_ENV: development (the default) or production, where what only suits development
	// (the development webhook secret key) is refused.
	Env string
	// PETSTORE_WEBHOOK_SECRET_KEYS: the keys that encrypt webhook signing secrets at rest, the
	// first sealing new ones; in development without it, the development key (see secretbox).
	WebhookSecretKeys *secretbox.Keyring
}

// Production reports whether the service runs as production (PETSTORE_ENV).
func (c Config) Production() bool { return c.Env == envProduction }

const envProduction = "production"

// LoadConfig reads the configuration through getenv and checks every value, naming each bad
// variable in the error.
func LoadConfig(getenv func(string) string) (Config, error) {
	e := envReader{getenv: getenv}
	c := Config{
		Addr:              e.listenAddr("PETSTORE_ADDR", ":8080"),
		DatabaseURL:       e.str("DATABASE_URL", ""),
		DBPath:            e.str("PETSTORE_DB_PATH", "petstore.db"),
		RedisURL:          e.str("REDIS_URL", ""),
		DBMaxOpenConns:    e.positiveInt("PETSTORE_DB_MAX_OPEN_CONNS", 20),
		DBMaxIdleConns:    e.positiveInt("PETSTORE_DB_MAX_IDLE_CONNS", 20),
		DBConnMaxLifetime: e.duration("PETSTORE_DB_CONN_MAX_LIFETIME", 30*time.Minute),
		DBTimeout:         e.duration("PETSTORE_DB_TIMEOUT", 5*time.Second),
		LogFormat:         e.oneOf("PETSTORE_LOG_FORMAT", "json", "json", "text"),
		ReadTimeout:       e.duration("PETSTORE_READ_TIMEOUT", 10*time.Second),
		WriteTimeout:      e.duration("PETSTORE_WRITE_TIMEOUT", 15*time.Second),
		IdleTimeout:       e.duration("PETSTORE_IDLE_TIMEOUT", 60*time.Second),
		ShutdownTimeout:   e.duration("PETSTORE_SHUTDOWN_TIMEOUT", 15*time.Second),
		ProductionURL:     e.baseURL("PETSTORE_PRODUCTION_URL", apiservers.DefaultProductionURL),
		StagingURL:        e.baseURL("PETSTORE_STAGING_URL", apiservers.DefaultStagingURL),
		AdminPassword:     getenv("PETSTORE_ADMIN_PASSWORD"),
		SessionTimeout:    e.duration("PETSTORE_SESSION_TIMEOUT", 8*time.Hour),
		AdminCountBudget:  e.duration("PETSTORE_ADMIN_COUNT_BUDGET", models.DefaultCountBudget),
		RedisPrefix:       e.str("PETSTORE_REDIS_PREFIX", "petstore:"),
		BanThreshold:      e.positiveFloat("PETSTORE_BAN_THRESHOLD", 1),
		BanDuration:       e.duration("PETSTORE_BAN_DURATION", 15*time.Minute),
		KeyCacheTTL:       e.duration("PETSTORE_KEY_CACHE_TTL", 5*time.Second),
		CountsMaxAge:      e.durationOrZero("PETSTORE_COUNTS_MAX_AGE", 10*time.Second),
		MaxHeaderBytes:    e.intIn("PETSTORE_MAX_HEADER_BYTES", 8<<10, 1<<10, 1<<20),
		TrustedProxies:    e.ipsOrCIDRs("PETSTORE_TRUSTED_PROXIES"),
		ProxyHeader:       e.headerName("PETSTORE_PROXY_HEADER", "X-Forwarded-For"),
		CORSOrigins:       e.origins("PETSTORE_CORS_ORIGINS"),
		PublicURL:         e.baseURL("PETSTORE_PUBLIC_URL", ""),
		Timezone:          e.location("PETSTORE_TIMEZONE"),
	}
	c.MediaDir = e.str("PETSTORE_MEDIA_DIR", filepath.Join(filepath.Dir(c.DBPath), "media"))
	c.MediaBucket = e.str("PETSTORE_MEDIA_BUCKET", "")
	if c.MediaBucket != "" {
		if s3, err := media.ParseS3URL(c.MediaBucket); err != nil {
			e.fail("PETSTORE_MEDIA_BUCKET", "%v, got %q", err, c.MediaBucket)
		} else if _, err := media.NewS3(s3, nil); err != nil {
			e.fail("PETSTORE_MEDIA_BUCKET", "%v", err)
		}
	}
	c.MediaURL = e.baseURL("PETSTORE_MEDIA_URL", "")
	c.WebhookAllowHTTP = e.boolean("PETSTORE_WEBHOOK_ALLOW_HTTP", false)
	c.WebhookAllowPrivate = e.boolean("PETSTORE_WEBHOOK_ALLOW_PRIVATE", false)
	c.WebhookRetryDelays = e.durations("PETSTORE_WEBHOOK_RETRY_DELAYS", webhooks.DefaultRetryDelays, maxRetryDelays)
	c.Env = e.oneOf("PETSTORE_ENV", "development", "development", envProduction)
	c.WebhookSecretKeys = e.secretKeys("PETSTORE_WEBHOOK_SECRET_KEYS", c.Production())
	c.MetricsAddr = e.privateAddr("PETSTORE_METRICS_ADDR", "9090", "metrics", c.Addr)
	c.DebugAddr = e.privateAddr("PETSTORE_DEBUG_ADDR", "6060", "profiles", c.Addr, c.MetricsAddr)
	// The profiles show the program's insides: with no host named they are served on loopback.
	if host, port, err := net.SplitHostPort(c.DebugAddr); err == nil && host == "" {
		c.DebugAddr = net.JoinHostPort("127.0.0.1", port)
	}
	for _, u := range strings.Split(e.str("DATABASE_REPLICA_URLS", ""), ",") {
		if u = strings.TrimSpace(u); u == "" {
			continue
		}
		if pu, err := url.Parse(u); err != nil || (pu.Scheme != "postgres" && pu.Scheme != "postgresql") || pu.Host == "" {
			e.fail("DATABASE_REPLICA_URLS", "must be comma-separated URLs like postgres://user@replica:5432/dbname, got %q", redactURL(u))
		}
		c.DatabaseReplicaURLs = append(c.DatabaseReplicaURLs, u)
	}
	if len(c.DatabaseReplicaURLs) > 0 && c.DatabaseURL == "" {
		e.fail("DATABASE_REPLICA_URLS", "needs DATABASE_URL: replicas serve reads for a PostgreSQL primary, not the embedded SQLite")
	}
	level := e.oneOf("PETSTORE_LOG_LEVEL", "info", "debug", "info", "warn", "error")
	_ = c.LogLevel.UnmarshalText([]byte(level))
	if c.DatabaseURL != "" {
		u, err := url.Parse(c.DatabaseURL)
		if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") || u.Host == "" {
			e.fail("DATABASE_URL", "must be a URL like postgres://user@host:5432/dbname, got %q", redactURL(c.DatabaseURL))
		}
	}
	if c.RedisURL != "" {
		u, err := url.Parse(c.RedisURL)
		if err != nil || (u.Scheme != "redis" && u.Scheme != "rediss") || u.Host == "" {
			e.fail("REDIS_URL", "must be a URL like redis://host:6379/0, got %q", redactURL(c.RedisURL))
		} else if _, err := redis.ParseURL(c.RedisURL); err != nil {
			e.fail("REDIS_URL", "%v", err)
		}
	}
	if p := c.AdminPassword; p != "" {
		if err := models.ValidatePassword("password", p, "admin"); err != nil {
			e.fail("PETSTORE_ADMIN_PASSWORD", "%s", strings.TrimPrefix(err.Message, "password: "))
		}
	}
	if c.DBPath == "" {
		e.fail("PETSTORE_DB_PATH", "must not be empty")
	}
	return c, errors.Join(e.errs...)
}

// redactURL hides a password in a database URL so it never reaches a message or a log line.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

type envReader struct {
	getenv func(string) string
	errs   []error
}

func (e *envReader) fail(name, format string, args ...any) {
	e.errs = append(e.errs, fmt.Errorf("%s: "+format, append([]any{name}, args...)...))
}

func (e *envReader) str(name, def string) string {
	if v := strings.TrimSpace(e.getenv(name)); v != "" {
		return v
	}
	return def
}

// listenAddr reads the public listen address: a port after a colon, a host before it optional.
func (e *envReader) listenAddr(name, def string) string {
	addr := e.str(name, def)
	_, port, err := net.SplitHostPort(addr)
	if p, perr := strconv.Atoi(port); err != nil || perr != nil || p < 0 || p > 65535 {
		e.fail(name, "must be a listen address, a port after a colon with an optional host before it, such as :8080 or 127.0.0.1:8080; got %q", addr)
	}
	return addr
}

// privateAddr reads the listen address of a listener apart from the public one (what names what
// it serves), refusing the port of any of others (PETSTORE_ADDR first); empty when unset.
func (e *envReader) privateAddr(name, examplePort, what string, others ...string) string {
	addr := e.str(name, "")
	if addr == "" {
		return ""
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		e.fail(name, "must be a listen address such as :%s or 127.0.0.1:%s, got %q", examplePort, examplePort, addr)
		return addr
	}
	for i, other := range others {
		if _, p, _ := net.SplitHostPort(other); p == port && port != "0" {
			if i == 0 {
				e.fail(name, "must not be the public port %s (PETSTORE_ADDR): %s stay off the public listener", port, what)
			} else {
				e.fail(name, "must not be the port of another listener (%s)", other)
			}
		}
	}
	return addr
}

func (e *envReader) positiveInt(name string, def int) int {
	v := e.str(name, "")
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		e.fail(name, "must be a positive integer, got %q", v)
	}
	return n
}

func (e *envReader) positiveFloat(name string, def float64) float64 {
	v := e.str(name, "")
	if v == "" {
		return def
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || !(f > 0) || math.IsInf(f, 0) {
		e.fail(name, "must be a positive number such as 1 or 0.5, got %q", v)
	}
	return f
}

func (e *envReader) duration(name string, def time.Duration) time.Duration {
	v := e.str(name, "")
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		e.fail(name, "must be a positive duration such as 5s or 2m, got %q", v)
	}
	return d
}

// durationOrZero is duration where 0 is allowed too (turning something off).
func (e *envReader) durationOrZero(name string, def time.Duration) time.Duration {
	if e.str(name, "") == "0" {
		return 0
	}
	return e.duration(name, def)
}

// baseURL reads the address of a deployment, to which /v1 is appended; with an empty default it
// is optional.
func (e *envReader) baseURL(name, def string) string {
	v := strings.TrimRight(e.str(name, def), "/")
	if v == "" && def == "" {
		return ""
	}
	u, err := url.Parse(v)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil:
		e.fail(name, "must be an http or https URL such as https://api.example.com, got %q", v)
	case strings.HasSuffix(u.Path, "/v1"):
		e.fail(name, "must not end in /v1: the service appends it, got %q", v)
	}
	return v
}

// location reads an IANA time zone name such as Europe/Paris; UTC when unset.
func (e *envReader) location(name string) *time.Location {
	v := e.str(name, "UTC")
	// LoadLocation also takes "Local", which would make the zone depend on the machine.
	loc, err := time.LoadLocation(v)
	if err != nil || v == "Local" {
		e.fail(name, "must be an IANA time zone name such as Europe/Paris or America/New_York, got %q", v)
		return time.UTC
	}
	return loc
}

func (e *envReader) oneOf(name, def string, allowed ...string) string {
	v := strings.ToLower(e.str(name, def))
	for _, a := range allowed {
		if v == a {
			return v
		}
	}
	e.fail(name, "must be one of %s, got %q", strings.Join(allowed, ", "), v)
	return def
}

func (e *envReader) intIn(name string, def, lo, hi int) int {
	v := e.str(name, "")
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		e.fail(name, "must be an integer from %d to %d, got %q", lo, hi, v)
	}
	return n
}

func (e *envReader) boolean(name string, def bool) bool {
	switch v := strings.ToLower(e.str(name, "")); v {
	case "":
		return def
	case "true":
		return true
	case "false":
		return false
	default:
		e.fail(name, "must be true or false, got %q", v)
		return def
	}
}

// secretKeys reads the keys that seal webhook secrets. Without any, production refuses to start
// (secrets sealed under a key everyone knows are as good as clear); development uses the
// development key, and serve warns of it.
func (e *envReader) secretKeys(name string, production bool) *secretbox.Keyring {
	v := e.str(name, "")
	if v == "" {
		if production {
			e.fail(name, "must be set when PETSTORE_ENV=production: it encrypts webhook signing secrets at rest. "+
				"Generate a key with `openssl rand -base64 32` and set %s=k1:<that key> (see docs/operations.md)", name)
		}
		return secretbox.Development()
	}
	r, err := secretbox.Parse(v)
	if err != nil {
		e.fail(name, "%v", err)
		return secretbox.Development()
	}
	return r
}

// maxRetryDelays bounds the retry schedule: the queue keeps a delivery's job until its last attempt.
const maxRetryDelays = 20

// durations reads a comma-separated list of positive durations, 1 to most of them.
func (e *envReader) durations(name string, def []time.Duration, most int) []time.Duration {
	items := e.list(name)
	if len(items) == 0 {
		if e.str(name, "") != "" {
			e.fail(name, "must list durations such as 5s,5m,30m separated by commas, got %q", e.getenv(name))
		}
		return def
	}
	if len(items) > most {
		e.fail(name, "must list at most %d durations, got %d", most, len(items))
		return def
	}
	out := make([]time.Duration, len(items))
	for i, item := range items {
		d, err := time.ParseDuration(item)
		if err != nil || d <= 0 {
			e.fail(name, "must list positive durations such as 5s,5m,30m separated by commas, got %q", item)
			return def
		}
		out[i] = d
	}
	return out
}

// list splits a comma-separated value, dropping empty items.
func (e *envReader) list(name string) []string {
	var out []string
	for _, item := range strings.Split(e.str(name, ""), ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// ipsOrCIDRs reads addresses in their canonical form, which is how fiber compares a peer's
// address with its list of trusted proxies.
func (e *envReader) ipsOrCIDRs(name string) []string {
	var out []string
	for _, item := range e.list(name) {
		if _, n, err := net.ParseCIDR(item); err == nil {
			out = append(out, n.String())
		} else if ip := net.ParseIP(item); ip != nil {
			out = append(out, ip.String())
		} else {
			e.fail(name, "must be IP addresses or CIDR ranges separated by commas, got %q", item)
		}
	}
	return out
}

func (e *envReader) headerName(name, def string) string {
	v := e.str(name, def)
	for _, r := range v {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
			e.fail(name, "must be an HTTP header name such as X-Forwarded-For, got %q", v)
			break
		}
	}
	return v
}

// origins reads browser origins: "*", scheme://host[:port] with nothing after the host, or
// scheme://*.domain for every subdomain of one domain.
func (e *envReader) origins(name string) []string {
	var out []string
	for _, item := range e.list(name) {
		u, err := url.Parse(item)
		if item != "*" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
			(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.User != nil ||
			strings.Contains(strings.TrimPrefix(u.Host, "*."), "*") || u.Host == "*.") {
			e.fail(name, "must be origins such as https://shop.example.com separated by commas, or *, got %q", item)
			continue
		}
		out = append(out, strings.TrimSuffix(strings.ToLower(item), "/"))
	}
	return out
}
