// Package routes is the HTTP surface of the service: every route is registered in Register,
// and each resource's handlers sit in a file of their own beside it.
package routes

import (
	"context"
	"log/slog"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/app/admission"
	"github.com/petstore/petstore/app/ratelimit"
	"github.com/petstore/petstore/metrics"
	"github.com/petstore/petstore/models"
)

// Deps are what New wires the routes with; NewServer in package app builds them.
type Deps struct {
	Log *slog.Logger
	// AccessLog gets one line per request; nil writes them to Log.
	AccessLog AccessLog
	// DBTimeout bounds each request's database work, and each page a CSV export reads.
	DBTimeout time.Duration
	// Now is the service's one clock; Gate, Keys and Limiter read the same.
	Now    func() time.Time
	Stores Stores
	// Photos are the pets' photos: their rows, the media store that keeps the images, the
	// decoder and where the images are served from.
	Photos Photos
	Admin  AdminSettings
	// Gate admits /v1 requests: API keys, rate limits, bans and scopes.
	Gate *admission.Gate
	// Limiter counts /v1 requests per key and per client IP. Admin pages read today's traffic
	// from it (Today) and a key's usage (Usage with ratelimit.KeyClient(id)).
	Limiter ratelimit.Limiter
	// Metrics counts requests; the rate limiter reports refusals and bans to it. Nil counts nothing.
	Metrics *metrics.Metrics
	// DatabaseReady checks the database for /readyz; ReplicasReady the read replicas, nil when
	// there are none.
	DatabaseReady, ReplicasReady ReadyCheck
	// CORSOrigins are the browser origins allowed to call /v1; empty turns CORS off.
	CORSOrigins []string
	// PublicURL is where clients reach the service, without /v1: the absolute URLs of Link and
	// Location start with it. Empty, they start with the request's own scheme and host.
	PublicURL string
	// ProductionURL and StagingURL are the deployments' addresses without /v1, listed as servers
	// by the served API document.
	ProductionURL, StagingURL string
}

// Stores are the domain's stores the handlers are made with. Each decides itself which of its
// reads tolerate a read replica's lag; a request lets them go there (models.MayReadReplica):
// /v1 does, the admin pages never do, so staff see their own changes.
type Stores struct {
	Pets       *models.PetStore
	Categories *models.CategoryStore
	Orders     *models.OrderStore
	Events     *models.EventStore
	Webhooks   *models.WebhookStore
	IdemKeys   *models.IdempotencyStore // the responses of POSTs sent with an Idempotency-Key
	// Staff, Keys, Clients and Audit are what the admin pages manage and show.
	Staff   *models.StaffStore
	Keys    *models.APIKeyStore
	Clients *models.ClientStore
	Audit   *models.AuditStore
}

// AdminSettings are the admin pages' settings.
type AdminSettings struct {
	// Sessions keeps the sessions and the addresses staff sign in from; nil keeps them in memory.
	Sessions       fiber.Storage
	SessionTimeout time.Duration // 0 is 8 hours
	// CountBudget is the database time a table may spend on each count before it estimates.
	CountBudget time.Duration
	// Zone is the store's time zone: the pages and their CSV show every time in it, and its day
	// is the dashboard's "today". Nil is UTC.
	Zone *time.Location
}

// New builds the service's HTTP server on d, with every route. server carries the settings of
// the deployment (timeouts, trusted proxies); New sets those the routes depend on: the error
// handler, the body limits and the JSON encoder.
func New(server fiber.Config, d Deps) *fiber.App {
	check := admit(d.Gate, d.Metrics)
	server.ErrorHandler = errorHandler{log: d.Log, admit: check}.handle
	server.BodyLimit = readLimit
	server.JSONEncoder = models.EncodeJSON
	// Nothing here takes uploads: a multipart body is not parsed while it is read, before
	// authentication and the limits, but refused like any body that is not JSON.
	server.DisablePreParseMultipartForm = true
	app := fiber.New(server)
	register(app, d, check)
	return app
}

func register(app *fiber.App, d Deps, check func(*fiber.Ctx) error) {
	s := d.Stores
	// First, outside accessLog (which answers errors), so it counts the status clients get.
	app.Use(d.Metrics.Middleware())
	access := d.AccessLog
	if access == nil {
		access = SlogAccessLog(d.Log)
	}
	// Without a trusted proxy no request's forwarding headers count, and fiber need not be asked
	// whether each request came through one (app's NewServer always has it check).
	cfg := app.Config()
	proxies := !cfg.EnableTrustedProxyCheck || len(cfg.TrustedProxies) > 0
	app.Use(withRequestID(), accessLog(access, proxies), recoverPanics(d.Log))
	app.Use(withSecurityHeaders(proxies))
	refuseUnknownMethods(app)
	if len(d.CORSOrigins) > 0 {
		app.Use("/v1", corsPolicy(d.CORSOrigins))
	}

	app.Get("/", landing)
	app.Get("/healthz", healthz)
	app.Get("/readyz", readyz(map[string]ReadyCheck{
		"database": d.DatabaseReady,
		"ratelimit": func(ctx context.Context) error {
			if err := d.Limiter.Ready(ctx); err != nil {
				return Degraded{Reason: err.Error()}
			}
			return nil
		},
		"replicas": d.ReplicasReady,
		// The catalogue is served without its photos' store, so its loss degrades the instance
		// rather than taking it out of the load balancer; the reason names no path or bucket.
		"media": func(ctx context.Context) error {
			if d.Photos.Media == nil || d.Photos.Media.Ready(ctx) == nil {
				return nil
			}
			return Degraded{Reason: "the photos' store does not answer: uploads and /media fail"}
		},
	}))

	// Answers of 1 KiB or more are compressed on /v1 and /docs, never on the admin pages: they
	// show secrets, which compression beside reflected input can leak (BREACH).
	compressor, negotiate := compressAnswers()
	app.Use([]string{"/v1", "/docs"}, compressor, negotiate)

	// The API documentation: Swagger UI, Redoc and the OpenAPI 3 document, all embedded.
	docs := newDocsSite(d.ProductionURL, d.StagingURL)
	app.Get("/docs", docs.swaggerUI)
	app.Get("/docs/redoc", docs.redoc)
	app.Get("/docs/openapi.json", docs.document)
	app.Get("/docs/:asset", docs.asset) // scripts and styles, by content-hashed name
	app.Get("/favicon.ico", serveFavicon)

	app.Use("/v1/pets/:petId", deprecatedGetPet)
	// The API's reads of the catalogue may come from a read replica, a moment behind the
	// primary; the admin pages' never do, so staff see their own changes.
	base := publicBase{url: d.PublicURL, proxies: proxies}
	v1 := app.Group("/v1", withDeadline(d.DBTimeout), mayReadReplicas, withMediaBase(d.Photos.MediaURL, base))
	v1.Use(authenticate(check), limitBody)
	idem := idempotent(s.IdemKeys, d.Log)
	// Each operation first names the scope it needs (need); the document publishes the same as
	// its x-required-scope, and a test holds the two together.
	v1.Get("/pets", need(models.ScopePetsRead), listPets(s.Pets, base))
	v1.Post("/pets", need(models.ScopePetsWrite), idem, createPet(s.Pets, base))
	v1.Get("/pets/:petId", need(models.ScopePetsRead), getPet(s.Pets))
	v1.Patch("/pets/:petId", need(models.ScopePetsWrite), updatePet(s.Pets))
	v1.Delete("/pets/:petId", need(models.ScopePetsWrite), deletePet(s.Pets))
	v1.Post("/pets/:petId/photos", need(models.ScopePetsWrite), idem, addPetPhoto(d.Photos, d.DBTimeout, base))
	v1.Get("/pets/:petId/photos/:photoId", need(models.ScopePetsRead), getPetPhoto(d.Photos))
	v1.Patch("/pets/:petId/photos/:photoId", need(models.ScopePetsWrite), updatePetPhoto(d.Photos))
	v1.Delete("/pets/:petId/photos/:photoId", need(models.ScopePetsWrite), deletePetPhoto(d.Photos))
	v1.Get("/tags", need(models.ScopePetsRead), listTags(s.Pets))
	v1.Get("/categories", need(models.ScopePetsRead), listCategories(s.Categories))
	v1.Get("/store/inventory", need(models.ScopePetsRead), getInventory(s.Pets))
	v1.Get("/store/orders", need(models.ScopeOrdersRead), listOrders(s.Orders, base))
	v1.Post("/store/orders", need(models.ScopeOrdersWrite), idem, createOrder(s.Orders, base))
	v1.Get("/store/orders/:orderId", need(models.ScopeOrdersRead), getOrder(s.Orders))
	v1.Post("/store/orders/:orderId/cancel", need(models.ScopeOrdersWrite), cancelOrder(s.Orders))
	v1.Get("/events", needAny(models.ScopePetsRead, models.ScopeOrdersRead), listEvents(s.Events, base))
	v1.Get("/webhook-endpoints", need(models.ScopeWebhooks), listWebhookEndpoints(s.Webhooks))
	v1.Post("/webhook-endpoints", need(models.ScopeWebhooks), createWebhookEndpoint(s.Webhooks, base))
	v1.Get("/webhook-endpoints/:endpointId", need(models.ScopeWebhooks), getWebhookEndpoint(s.Webhooks))
	v1.Patch("/webhook-endpoints/:endpointId", need(models.ScopeWebhooks), updateWebhookEndpoint(s.Webhooks))
	v1.Delete("/webhook-endpoints/:endpointId", need(models.ScopeWebhooks), deleteWebhookEndpoint(s.Webhooks))
	v1.Post("/webhook-endpoints/:endpointId/rotate-secret", need(models.ScopeWebhooks), rotateWebhookSecret(s.Webhooks))

	app.Get("/static/:file", serveStatic)
	// The pets' photos, public: outside /v1, without a key.
	app.Get("/media/:file", withDeadline(d.DBTimeout), serveMedia(d.Photos.Media))

	// The admin pages (docs/design.md, "Admin pages"): every page needs a staff session
	// (requireStaff), and the role's right to it (may, models.Rights) where not every role has it.
	// What several pages share: the sessions (sign-in, the flash), the login guard, the audit
	// trail they show, the store's clock, the CSV exports and keys as their tables show them.
	zone := d.Admin.Zone
	if zone == nil {
		zone = time.UTC
	}
	sessions := newAdminSessions(d.Admin.Sessions, d.Admin.SessionTimeout)
	logins := newLoginGuard(d.Limiter, sessions.store.Storage, d.Now)
	trail := auditTrail{audit: s.Audit, cats: s.Categories, zone: zone}
	clock := storeClock{now: d.Now, zone: zone}
	export := exporter{storeClock: clock, log: d.Log, timeout: d.DBTimeout}
	kv := keyViews{keys: s.Keys, clients: s.Clients, limiter: d.Limiter, now: d.Now}
	staff := requireStaff(sessions, s.Staff, d.Admin.CountBudget, zone)
	app.Use("/admin", contentSecurityPolicy(adminCSP))
	adm := app.Group("/admin", limitBody, withDeadline(d.DBTimeout), withMediaBase(d.Photos.MediaURL, base), adminResponses, sessions.csrf())
	adm.Get("/login", loginForm(sessions))
	adm.Post("/login", login(sessions, s.Staff, logins, d.Log))
	adm.Get("/logout", staff, logoutConfirm)
	adm.Post("/logout", logout(sessions, s.Staff))
	adm.Get("/account", staff, account)
	adm.Post("/account/password", staff, changePassword(sessions, s.Staff, logins, d.Log))
	adm.Get("/", staff, dashboard(clock, kv, s.Pets, s.Orders, s.Webhooks, trail))
	adm.Get("/pets", staff, adminListPets(s.Pets, s.Categories, s.Orders, export))
	adm.Post("/pets", staff, adminCreatePet(sessions, s.Pets, s.Categories))
	adm.Post("/pets/bulk", staff, bulkPets(s.Pets, s.Categories, s.Orders))
	adm.Get("/pets/new", staff, newPetForm(s.Pets, s.Categories))
	adm.Get("/pets/:id", staff, showPet(s.Pets, s.Categories, s.Orders, trail))
	adm.Post("/pets/:id", staff, adminUpdatePet(sessions, s.Pets, s.Categories))
	adm.Get("/pets/:id/edit", staff, editPetForm(s.Pets, s.Categories))
	adm.Post("/pets/:id/status", staff, setPetStatus(sessions, s.Pets, s.Categories, s.Orders, trail))
	adm.Post("/pets/:id/orders", staff, placeOrder(sessions, s.Pets, s.Categories, s.Orders, trail))
	adm.Post("/pets/:id/delete", staff, adminDeletePet(sessions, s.Pets, s.Categories, s.Orders, trail))
	adm.Post("/pets/:id/restore", staff, restorePet(sessions, s.Pets))
	adm.Post("/pets/:id/photos", staff, addPetPhotos(sessions, d.Photos, d.DBTimeout))
	adm.Post("/pets/:id/photos/:photoId/cover", staff, makeCover(sessions, d.Photos))
	adm.Post("/pets/:id/photos/:photoId/delete", staff, deletePhoto(sessions, d.Photos))
	adm.Get("/orders", staff, adminListOrders(s.Orders, s.Pets, s.Clients, zone, export))
	adm.Post("/orders/bulk", staff, bulkOrders(clock, s.Orders, s.Pets))
	adm.Get("/orders/:id", staff, showOrder(s.Orders, s.Pets, trail))
	adm.Post("/orders/:id/approve", staff, orderAction(sessions, clock, s.Orders, s.Pets, trail, models.ActionApprove))
	adm.Post("/orders/:id/deliver", staff, orderAction(sessions, clock, s.Orders, s.Pets, trail, models.ActionDeliver))
	adm.Post("/orders/:id/cancel", staff, orderAction(sessions, clock, s.Orders, s.Pets, trail, models.ActionCancel))
	// Suggestions for the fields that pick an object by name (views.Suggest), to the roles that
	// see those objects' names.
	adm.Get("/suggest/categories", staff, may(models.RightPets), suggest(s.Categories.Suggest))
	adm.Get("/suggest/clients", staff, may(models.RightOrders), suggest(s.Clients.Suggest))
	adm.Get("/categories", staff, may(models.RightAddCategory), adminListCategories(s.Pets, s.Categories))
	adm.Post("/categories", staff, may(models.RightAddCategory), createCategory(sessions, s.Pets, s.Categories))
	adm.Post("/categories/:id", staff, may(models.RightRenameCategory), renameCategory(sessions, s.Pets, s.Categories))
	adm.Get("/keys", staff, may(models.RightKeys), listKeys(kv, export))
	adm.Post("/keys", staff, may(models.RightKeys), createKey(sessions, kv))
	adm.Get("/keys/:id", staff, may(models.RightKeys), showKey(sessions, kv, trail))
	adm.Post("/keys/:id/plan", staff, may(models.RightKeys), changeKeyPlan(sessions, kv, trail))
	adm.Post("/keys/:id/revoke", staff, may(models.RightKeys), revokeKey(sessions, s.Keys))
	adm.Post("/keys/:id/unban", staff, may(models.RightKeys), unbanKey(sessions, s.Keys))
	adm.Post("/keys/:id/scopes", staff, may(models.RightKeys), changeKeyScopes(sessions, kv, trail))
	adm.Get("/clients", staff, may(models.RightClients), listClients(kv, export))
	adm.Post("/clients", staff, may(models.RightClients), createClient(sessions, kv))
	adm.Get("/clients/:id", staff, may(models.RightClients), showClient(kv, s.Orders, s.Pets, s.Webhooks, trail))
	adm.Post("/clients/:id/keys", staff, may(models.RightClients), createClientKey(sessions, kv, s.Orders, s.Pets, s.Webhooks, trail))
	adm.Get("/clients/:id/endpoints/:endpoint", staff, may(models.RightClients), showEndpoint(s.Clients, s.Webhooks, s.Events, trail))
	adm.Post("/clients/:id/endpoints/:endpoint/enable", staff, may(models.RightClients), enableEndpoint(sessions, s.Clients, s.Webhooks))
	adm.Post("/clients/:id/endpoints/:endpoint/resend", staff, may(models.RightClients), resendEvent(sessions, s.Clients, s.Webhooks))
	adm.Get("/webhook-endpoints/:endpoint", staff, may(models.RightClients), endpointByID(s.Webhooks))
	adm.Get("/webhooks", staff, may(models.RightClients), listWebhooks(s.Clients, s.Webhooks))
	adm.Get("/staff", staff, may(models.RightStaff), listStaff(s.Staff))
	adm.Post("/staff", staff, may(models.RightStaff), createStaff(sessions, s.Staff))
	adm.Get("/staff/:id", staff, may(models.RightStaff), showStaff(sessions, s.Staff, trail))
	adm.Post("/staff/:id/password", staff, may(models.RightStaff), resetPassword(sessions, s.Staff, d.Log))
	adm.Post("/staff/:id/disable", staff, may(models.RightStaff), setStaffDisabled(sessions, s.Staff, true))
	adm.Post("/staff/:id/enable", staff, may(models.RightStaff), setStaffDisabled(sessions, s.Staff, false))
	adm.Get("/audit", staff, may(models.RightAudit), listAudit(trail, export))
	// Last: an unknown admin page is a 404 inside the layout, after the session check.
	adm.Get("/*", staff, func(*fiber.Ctx) error { return fiber.ErrNotFound })
}
