//lint:file-ignore SA1019 getPet is deprecated, and still an operation of the document to call.

package app_test

// A client generated from docs/openapi.json by oapi-codegen (app/apptest/apiclient, written by
// make generate) calls every operation of the document on the real server, and every answer,
// errors included, is decoded into the client's own generated types: the proof that the document
// is usable, not only valid. Each exchange is also held to the document by apptest.

import (
	"bytes"
	"io"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/apiclient"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
)

// generatedClient talks to s through apptest, so its requests carry s's headers (its API key)
// and every exchange is checked against the document.
func generatedClient(t *testing.T, s *apptest.Server) *apiclient.ClientWithResponses {
	t.Helper()
	c, err := apiclient.NewClientWithResponses(s.URL+"/v1", apiclient.WithHTTPClient(apptestDoer{t, s}))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

type apptestDoer struct {
	t *testing.T
	s *apptest.Server
}

func (d apptestDoer) Do(req *http.Request) (*http.Response, error) {
	res := d.s.Do(d.t, req)
	res.Response.Body = io.NopCloser(bytes.NewReader(res.Body))
	return res.Response, nil
}

// answer is what every generated response type has.
type answer interface{ StatusCode() int }

// decoded fails the test unless the call succeeded (the client decoded the answer: a body that
// does not fit the generated type, or a header that does not, is an error) with status want.
func decoded[R answer](t *testing.T, res R, err error, want int) R {
	t.Helper()
	if err != nil {
		t.Fatalf("the generated client could not decode the answer: %v", err)
	}
	if res.StatusCode() != want {
		t.Fatalf("status %d, want %d", res.StatusCode(), want)
	}
	return res
}

// anError checks an Error the client decoded.
func anError(t *testing.T, e *apiclient.Error, code apiclient.ErrorCode, status int) {
	t.Helper()
	if e == nil {
		t.Fatalf("no %d Error decoded", status)
	}
	if e.Code != code || int(e.Status) != status || e.Message == "" {
		t.Fatalf("Error %+v, want code %s and status %d with a message", *e, code, status)
	}
}

func TestAClientGeneratedFromTheDocumentCallsEveryOperation(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		cfg := apptest.Config(t, store)
		// A webhook endpoint on loopback is accepted (no delivery is ever attempted here).
		cfg.WebhookAllowHTTP, cfg.WebhookAllowPrivate = true, true
		s := apptest.New(t, cfg)
		c, anon := generatedClient(t, s), generatedClient(t, s.As(""))
		ctx := t.Context()
		var pet apiclient.Pet
		var order apiclient.Order
		var hook apiclient.WebhookEndpoint
		var photo apiclient.Photo
		const unknownID = 1 << 40

		// One entry per operation of the document, in the order they run. An operation the
		// document gains (a new handler's annotations) fails this test until it has an entry
		// here: call it with the generated client, check what it answers, and call it without a
		// key (every operation answers 401 then).
		operations := []struct {
			id   string
			call func(t *testing.T)
		}{
			{"listCategories", func(t *testing.T) {
				res, err := c.ListCategoriesWithResponse(ctx, nil)
				if cats := *decoded(t, res, err, 200).JSON200; len(cats) == 0 || cats[0].Name == "" {
					t.Fatalf("categories %+v, want the seeded ones", cats)
				}
				res, err = anon.ListCategoriesWithResponse(ctx, nil)
				anError(t, decoded(t, res, err, 401).JSON401, apiclient.ErrorCodeMissingApiKey, 401)
			}},
			{"listCategoriesHead", func(t *testing.T) {
				res, err := c.ListCategoriesHeadWithResponse(ctx, nil)
				if h := decoded(t, res, err, 200).Headers200; h == nil || h.XRateLimitLimit != apptest.DefaultKeyLimit || len(res.Body) != 0 {
					t.Fatalf("headers %+v, body %q: want the rate-limit headers and no body", h, res.Body)
				}
				res, err = anon.ListCategoriesHeadWithResponse(ctx, nil)
				if h := decoded(t, res, err, 401).Headers401; h == nil || !strings.HasPrefix(h.WWWAuthenticate, "Bearer") {
					t.Fatalf("401 headers %+v, want a Bearer challenge", h)
				}
			}},
			{"createPet", func(t *testing.T) {
				key := "client-test-pet"
				params := &apiclient.CreatePetParams{IdempotencyKey: &key}
				res, err := c.CreatePetWithResponse(ctx, params, apiclient.NewPet{Name: "Rex", CategoryId: 1, Tags: &[]string{"puppy", "Calm"}})
				pet = *decoded(t, res, err, 201).JSON201
				if pet.Name != "Rex" || pet.Status != apiclient.PetStatusAvailable || pet.CreatedAt == nil || res.Headers201.Location == nil {
					t.Fatalf("pet %+v, headers %+v: want Rex, available, with createdAt and a Location", pet, res.Headers201)
				}
				if !slices.Equal(pet.Tags, []string{"calm", "puppy"}) {
					t.Fatalf("Rex's tags %q, want calm and puppy, lower-cased and sorted", pet.Tags)
				}
				res, err = c.CreatePetWithResponse(ctx, params, apiclient.NewPet{Name: "Max", CategoryId: 1})
				anError(t, decoded(t, res, err, 422).JSON422, apiclient.ErrorCodeIdempotencyKeyReused, 422)
				res, err = c.CreatePetWithResponse(ctx, nil, apiclient.NewPet{Name: "Rex", CategoryId: unknownID})
				anError(t, decoded(t, res, err, 400).JSON400, apiclient.ErrorCodeValidationFailed, 400)
				res, err = anon.CreatePetWithResponse(ctx, nil, apiclient.NewPet{Name: "Rex", CategoryId: 1})
				anError(t, decoded(t, res, err, 401).JSON401, apiclient.ErrorCodeMissingApiKey, 401)
			}},
			{"listPets", func(t *testing.T) {
				second, err := c.CreatePetWithResponse(ctx, nil, apiclient.NewPet{Name: "Max", CategoryId: 2})
				decoded(t, second, err, 201) // so that a page of one has a next page
				res, err := c.ListPetsWithResponse(ctx, &apiclient.ListPetsParams{Limit: ptrTo(int32(1))})
				if pets := *decoded(t, res, err, 200).JSON200; len(pets) != 1 || pets[0].Id != pet.Id || res.Headers200.Link == nil {
					t.Fatalf("pets %+v, Link %v: want the first pet and a link to the next page", pets, res.Headers200.Link)
				}
				res, err = c.ListPetsWithResponse(ctx, &apiclient.ListPetsParams{Cursor: ptrTo("not-a-cursor")})
				anError(t, decoded(t, res, err, 400).JSON400, apiclient.ErrorCodeInvalidRequest, 400)
				res, err = anon.ListPetsWithResponse(ctx, nil)
				anError(t, decoded(t, res, err, 401).JSON401, apiclient.ErrorCodeMissingApiKey, 401)
			}},
			{"listPetsHead", func(t *testing.T) {
				res, err := c.ListPetsHeadWithResponse(ctx, &apiclient.ListPetsHeadParams{Limit: ptrTo(int32(1))})
				if h := decoded(t, res, err, 200).Headers200; h == nil || h.Link == nil || len(res.Body) != 0 {
					t.Fatalf("headers %+v, body %q: want the next page's Link and no body", h, res.Body)
				}
				res, err = anon.ListPetsHeadWithResponse(ctx, nil)
				decoded(t, res, err, 401)
			}},
			{"getPet", func(t *testing.T) {
				res, err := c.GetPetWithResponse(ctx, pet.Id, nil)
				if got := *decoded(t, res, err, 200).JSON200; got.Id != pet.Id || got.Name != pet.Name {
					t.Fatalf("pet %+v, want %+v", got, pet)
				}
				if h := res.Headers200; h.Deprecation == nil || h.Sunset == nil || h.Link == nil {
					t.Fatalf("headers %+v: want Deprecation, Sunset and the successor's Link", h)
				}
				res, err = c.GetPetWithResponse(ctx, unknownID, nil)
				anError(t, decoded(t, res, err, 404).JSON404, apiclient.ErrorCodeNotFound, 404)
				res, err = anon.GetPetWithResponse(ctx, pet.Id, nil)
				anError(t, decoded(t, res, err, 401).JSON401, apiclient.ErrorCodeMissingApiKey, 401)
			}},
			{"getPetHead", func(t *testing.T) {
				res, err := c.GetPetHeadWithResponse(ctx, pet.Id, nil)
				if h := decoded(t, res, err, 200).Headers200; h == nil || h.Sunset == nil || *h.Sunset != "Thu, 05 Dec 2030 00:00:00 GMT" {
					t.Fatalf("headers %+v: want the Sunset header", h)
				}
				res, err = c.GetPetHeadWithResponse(ctx, unknownID, nil)
				if h := decoded(t, res, err, 404).Headers404; h == nil || h.Deprecation == nil {
					t.Fatalf("404 headers %+v: want the Deprecation header on errors too", h)
				}
				res, err = anon.GetPetHeadWithResponse(ctx, pet.Id, nil)
				decoded(t, res, err, 401)
			}},
			{"createOrder", func(t *testing.T) {
				shipDate := time.Now().UTC().Add(48 * time.Hour).Truncate(time.Second)
				res, err := c.CreateOrderWithResponse(ctx, nil, apiclient.NewOrder{PetId: pet.Id, ShipDate: &shipDate})
				order = *decoded(t, res, err, 201).JSON201
				if order.PetId != pet.Id || order.Status != apiclient.OrderStatusPlaced || order.Complete || order.CreatedAt == nil {
					t.Fatalf("order %+v: want a placed order of pet %d", order, pet.Id)
				}
				res, err = c.CreateOrderWithResponse(ctx, nil, apiclient.NewOrder{PetId: pet.Id})
				anError(t, decoded(t, res, err, 409).JSON409, apiclient.ErrorCodeConflict, 409)
				res, err = c.CreateOrderWithResponse(ctx, nil, apiclient.NewOrder{PetId: unknownID})
				anError(t, decoded(t, res, err, 404).JSON404, apiclient.ErrorCodeNotFound, 404)
				res, err = anon.CreateOrderWithResponse(ctx, nil, apiclient.NewOrder{PetId: pet.Id})
				anError(t, decoded(t, res, err, 401).JSON401, apiclient.ErrorCodeMissingApiKey, 401)
			}},
			{"listOrders", func(t *testing.T) {
				res, err := c.ListOrdersWithResponse(ctx, &apiclient.ListOrdersParams{Status: ptrTo(apiclient.ListOrdersParamsStatusPlaced)})
				if orders := *decoded(t, res, err, 200).JSON200; !slices.ContainsFunc(orders, func(o apiclient.Order) bool { return o.Id == order.Id }) {
					t.Fatalf("placed orders %+v, want order %d among them", orders, order.Id)
				}
				res, err = c.ListOrdersWithResponse(ctx, &apiclient.ListOrdersParams{Cursor: ptrTo("not-a-cursor")})
				anError(t, decoded(t, res, err, 400).JSON400, apiclient.ErrorCodeInvalidRequest, 400)
				res, err = anon.ListOrdersWithResponse(ctx, nil)
				anError(t, decoded(t, res, err, 401).JSON401, apiclient.ErrorCodeMissingApiKey, 401)
			}},
			{"listOrdersHead", func(t *testing.T) {
				res, err := c.ListOrdersHeadWithResponse(ctx, nil)
				if h := decoded(t, res, err, 200).Headers200; h == nil || h.XRequestID == "" || len(res.Body) != 0 {
					t.Fatalf("headers %+v, body %q: want X-Request-ID and no body", h, res.Body)
				}
				res, err = anon.ListOrdersHeadWithResponse(ctx, nil)
				decoded(t, res, err, 401)
			}},
			{"getOrder", func(t *testing.T) {
				res, err := c.GetOrderWithResponse(ctx, order.Id, nil)
				if got := *decoded(t, res, err, 200).JSON200; got.Id != order.Id || got.Status != apiclient.OrderStatusPlaced {
					t.Fatalf("order %+v, want %+v", got, order)
				}
				res, err = c.GetOrderWithResponse(ctx, unknownID, nil)
				anError(t, decoded(t, res, err, 404).JSON404, apiclient.ErrorCodeNotFound, 404)
				res, err = anon.GetOrderWithResponse(ctx, order.Id, nil)
				anError(t, decoded(t, res, err, 401).JSON401, apiclient.ErrorCodeMissingApiKey, 401)
			}},
			{"addPetPhoto", func(t *testing.T) {
				image := jpegBytes(t, 800, 600, 0)
				res, err := c.AddPetPhotoWithBodyWithResponse(ctx, pet.Id, &apiclient.AddPetPhotoParams{IdempotencyKey: ptrTo("photo-1")},
					"image/jpeg", bytes.NewReader(image))
				photo = *decoded(t, res, err, 201).JSON201
				if photo.Width != 800 || photo.Height != 600 || photo.ContentType != apiclient.Imagejpeg {
					t.Fatalf("photo %+v, want an 800×600 JPEG", photo)
				}
				if img := fetch(t, photo.Url); img.StatusCode != 200 || img.Header.Get("Content-Type") != "image/jpeg" {
					t.Fatalf("GET %s: %d %s", photo.Url, img.StatusCode, img.Header.Get("Content-Type"))
				}
				res, err = c.AddPetPhotoWithBodyWithResponse(ctx, pet.Id, nil, "image/png", strings.NewReader("not a PNG"))
				anError(t, decoded(t, res, err, 400).JSON400, apiclient.ErrorCodeValidationFailed, 400)
				res, err = c.AddPetPhotoWithBodyWithResponse(ctx, unknownID, nil, "image/jpeg", bytes.NewReader(image))
				anError(t, decoded(t, res, err, 404).JSON404, apiclient.ErrorCodeNotFound, 404)
				res, err = anon.AddPetPhotoWithBodyWithResponse(ctx, pet.Id, nil, "image/jpeg", bytes.NewReader(image))
				anError(t, decoded(t, res, err, 401).JSON401, apiclient.ErrorCodeMissingApiKey, 401)
			}},
			{"getPetPhoto", func(t *testing.T) {
				res, err := c.GetPetPhotoWithResponse(ctx, pet.Id, photo.Id, nil)
				if got := *decoded(t, res, err, 200).JSON200; got != photo {
					t.Fatalf("photo %+v, want %+v", got, photo)
				}
				res, err = c.GetPetPhotoWithResponse(ctx, pet.Id, unknownID, nil)
				anError(t, decoded(t, res, err, 404).JSON404, apiclient.ErrorCodeNotFound, 404)
			}},
			{"getPetPhotoHead", func(t *testing.T) {
				res, err := c.GetPetPhotoHeadWithResponse(ctx, pet.Id, photo.Id, nil)
				decoded(t, res, err, 200)
			}},
			{"updatePetPhoto", func(t *testing.T) {
				second, err := c.AddPetPhotoWithBodyWithResponse(ctx, pet.Id, nil, "image/png", bytes.NewReader(pngBytes(t, 30, 20)))
				added := *decoded(t, second, err, 201).JSON201
				res, err := c.UpdatePetPhotoWithResponse(ctx, pet.Id, added.Id, apiclient.PhotoMove{Position: 0})
				if got := *decoded(t, res, err, 200).JSON200; got.Id != added.Id {
					t.Fatalf("moved photo %+v, want %d", got, added.Id)
				}
				list, err := c.ListPetsWithResponse(ctx, &apiclient.ListPetsParams{Id: &[]int64{pet.Id}})
				if got := *decoded(t, list, err, 200).JSON200; len(got) != 1 || got[0].Photos == nil || len(*got[0].Photos) != 2 || (*got[0].Photos)[0].Id != added.Id {
					t.Fatalf("pets %+v, want the moved photo first of two", got)
				}
				res, err = generatedClient(t, s.Invalid()).UpdatePetPhotoWithResponse(ctx, pet.Id, added.Id, apiclient.PhotoMove{Position: -1})
				anError(t, decoded(t, res, err, 400).JSON400, apiclient.ErrorCodeValidationFailed, 400)
			}},
			{"deletePetPhoto", func(t *testing.T) {
				res, err := c.DeletePetPhotoWithResponse(ctx, pet.Id, photo.Id)
				decoded(t, res, err, 204)
				res, err = c.DeletePetPhotoWithResponse(ctx, pet.Id, photo.Id)
				anError(t, decoded(t, res, err, 404).JSON404, apiclient.ErrorCodeNotFound, 404)
			}},
			{"updatePet", func(t *testing.T) {
				res, err := c.UpdatePetWithApplicationMergePatchPlusJSONBodyWithResponse(ctx, pet.Id, nil, apiclient.PetPatch{Name: ptrTo("Rex the Second")})
				got := *decoded(t, res, err, 200).JSON200
				if got.Name != "Rex the Second" || got.Status != apiclient.PetStatusPending || res.Headers200.ETag == nil {
					t.Fatalf("pet %+v, headers %+v: want the new name, still pending, and an ETag", got, res.Headers200)
				}
				current := res.Headers200.ETag
				res, err = c.UpdatePetWithResponse(ctx, pet.Id, &apiclient.UpdatePetParams{IfMatch: current}, apiclient.PetPatch{Name: ptrTo("Rex")})
				decoded(t, res, err, 200)
				res, err = c.UpdatePetWithResponse(ctx, pet.Id, &apiclient.UpdatePetParams{IfMatch: current}, apiclient.PetPatch{Name: ptrTo("Max")})
				anError(t, decoded(t, res, err, 412).JSON412, apiclient.ErrorCodePreconditionFailed, 412)
				res, err = c.UpdatePetWithResponse(ctx, pet.Id, nil, apiclient.PetPatch{Status: ptrTo(apiclient.PetStatusAvailable)})
				anError(t, decoded(t, res, err, 409).JSON409, apiclient.ErrorCodeConflict, 409)
				res, err = c.UpdatePetWithResponse(ctx, unknownID, nil, apiclient.PetPatch{Name: ptrTo("Max")})
				anError(t, decoded(t, res, err, 404).JSON404, apiclient.ErrorCodeNotFound, 404)
				res, err = anon.UpdatePetWithResponse(ctx, pet.Id, nil, apiclient.PetPatch{Name: ptrTo("Max")})
				anError(t, decoded(t, res, err, 401).JSON401, apiclient.ErrorCodeMissingApiKey, 401)
			}},
			{"deletePet", func(t *testing.T) {
				res, err := c.DeletePetWithResponse(ctx, pet.Id, nil)
				anError(t, decoded(t, res, err, 409).JSON409, apiclient.ErrorCodeConflict, 409)
				spare, err := c.CreatePetWithResponse(ctx, nil, apiclient.NewPet{Name: "Spare", CategoryId: 1})
				etag := decoded(t, spare, err, 201).Headers201.ETag
				res, err = c.DeletePetWithResponse(ctx, spare.JSON201.Id, &apiclient.DeletePetParams{IfMatch: etag})
				if decoded(t, res, err, 204); len(res.Body) != 0 {
					t.Fatalf("204 with a body %q", res.Body)
				}
				res, err = c.DeletePetWithResponse(ctx, spare.JSON201.Id, nil)
				anError(t, decoded(t, res, err, 404).JSON404, apiclient.ErrorCodeNotFound, 404)
				res, err = anon.DeletePetWithResponse(ctx, pet.Id, nil)
				anError(t, decoded(t, res, err, 401).JSON401, apiclient.ErrorCodeMissingApiKey, 401)
			}},
			{"getInventory", func(t *testing.T) {
				res, err := c.GetInventoryWithResponse(ctx)
				if inv := *decoded(t, res, err, 200).JSON200; inv.Available != 1 || inv.Pending != 1 || inv.Sold != 0 {
					t.Fatalf("inventory %+v, want Max available and Rex pending (Spare deleted)", inv)
				}
				res, err = anon.GetInventoryWithResponse(ctx)
				anError(t, decoded(t, res, err, 401).JSON401, apiclient.ErrorCodeMissingApiKey, 401)
			}},
			{"listTags", func(t *testing.T) {
				res, err := c.ListTagsWithResponse(ctx, nil)
				tags := *decoded(t, res, err, 200).JSON200
				if want := []apiclient.TagCount{{Name: "calm", Count: 1}, {Name: "puppy", Count: 1}}; !slices.Equal(tags, want) {
					t.Fatalf("tags %+v, want %+v (Rex's)", tags, want)
				}
				res, err = anon.ListTagsWithResponse(ctx, nil)
				anError(t, decoded(t, res, err, 401).JSON401, apiclient.ErrorCodeMissingApiKey, 401)
			}},
			{"listTagsHead", func(t *testing.T) {
				res, err := c.ListTagsHeadWithResponse(ctx, nil)
				if h := decoded(t, res, err, 200).Headers200; h == nil || h.ETag == nil || len(res.Body) != 0 {
					t.Fatalf("headers %+v, body %q: want an ETag and no body", h, res.Body)
				}
				res, err = anon.ListTagsHeadWithResponse(ctx, nil)
				decoded(t, res, err, 401)
			}},
			{"getInventoryHead", func(t *testing.T) {
				res, err := c.GetInventoryHeadWithResponse(ctx)
				if h := decoded(t, res, err, 200).Headers200; h == nil || h.XRequestID == "" || len(res.Body) != 0 {
					t.Fatalf("headers %+v, body %q: want X-Request-ID and no body", h, res.Body)
				}
				res, err = anon.GetInventoryHeadWithResponse(ctx)
				decoded(t, res, err, 401)
			}},
			{"getOrderHead", func(t *testing.T) {
				res, err := c.GetOrderHeadWithResponse(ctx, order.Id, nil)
				decoded(t, res, err, 200)
				res, err = c.GetOrderHeadWithResponse(ctx, unknownID, nil)
				if h := decoded(t, res, err, 404).Headers404; h == nil || h.XRateLimitRemaining < 0 {
					t.Fatalf("404 headers %+v, want the rate-limit headers", h)
				}
				res, err = anon.GetOrderHeadWithResponse(ctx, order.Id, nil)
				decoded(t, res, err, 401)
			}},
			{"cancelOrder", func(t *testing.T) {
				_, readOnly := s.CreateKey(t, models.NewAPIKey{Name: "reader", Plan: "pro", ClientID: s.ClientID, Scopes: []string{"orders:read"}})
				res, err := generatedClient(t, s.As(readOnly)).CancelOrderWithResponse(ctx, order.Id)
				anError(t, decoded(t, res, err, 403).JSON403, apiclient.ErrorCodeInsufficientScope, 403)
				if h := res.Headers403; h == nil || !strings.Contains(h.WWWAuthenticate, `scope="orders:write"`) {
					t.Fatalf("403 headers %+v, want the challenge naming orders:write", h)
				}
				res, err = c.CancelOrderWithResponse(ctx, order.Id)
				if got := *decoded(t, res, err, 200).JSON200; got.Id != order.Id || got.Status != apiclient.OrderStatusCancelled {
					t.Fatalf("order %+v, want order %d cancelled", got, order.Id)
				}
				res, err = c.CancelOrderWithResponse(ctx, order.Id)
				anError(t, decoded(t, res, err, 409).JSON409, apiclient.ErrorCodeConflict, 409)
				res, err = c.CancelOrderWithResponse(ctx, unknownID)
				anError(t, decoded(t, res, err, 404).JSON404, apiclient.ErrorCodeNotFound, 404)
				res, err = anon.CancelOrderWithResponse(ctx, order.Id)
				anError(t, decoded(t, res, err, 401).JSON401, apiclient.ErrorCodeMissingApiKey, 401)
			}},
			{"listEvents", func(t *testing.T) {
				params := &apiclient.ListEventsParams{Type: ptrTo(apiclient.EventTypePetCreated), Limit: ptrTo(int32(1))}
				var res *apiclient.ListEventsResponse
				var err error
				for range 200 { // on PostgreSQL an event is listed once the transactions before it have ended
					if res, err = c.ListEventsWithResponse(ctx, params); err != nil || res.JSON200 != nil && len(*res.JSON200) > 0 {
						break
					}
					time.Sleep(20 * time.Millisecond)
				}
				events := *decoded(t, res, err, 200).JSON200
				if len(events) != 1 || res.Headers200.Link == nil {
					t.Fatalf("events %+v, Link %v: want Rex's creation and a next page", events, res.Headers200.Link)
				}
				// The discriminator tells a pet event from an order event, typed to its object.
				which, err := events[0].ValueByDiscriminator()
				created, ok := which.(apiclient.PetEvent)
				if err != nil || !ok || created.Type != apiclient.PetEventTypePetCreated || created.Data.Object.Id != pet.Id || created.Data.Object.Name != "Rex" {
					t.Fatalf("pet.created is %#v (%v), want a PetEvent carrying Rex", which, err)
				}
				res, err = c.ListEventsWithResponse(ctx, &apiclient.ListEventsParams{Cursor: ptrTo("not-a-cursor")})
				anError(t, decoded(t, res, err, 400).JSON400, apiclient.ErrorCodeInvalidRequest, 400)
				res, err = anon.ListEventsWithResponse(ctx, nil)
				anError(t, decoded(t, res, err, 401).JSON401, apiclient.ErrorCodeMissingApiKey, 401)
			}},
			{"listEventsHead", func(t *testing.T) {
				res, err := c.ListEventsHeadWithResponse(ctx, nil)
				if h := decoded(t, res, err, 200).Headers200; h == nil || h.XRequestID == "" || len(res.Body) != 0 {
					t.Fatalf("headers %+v, body %q: want X-Request-ID and no body", h, res.Body)
				}
				res, err = anon.ListEventsHeadWithResponse(ctx, nil)
				decoded(t, res, err, 401)
			}},
			{"createWebhookEndpoint", func(t *testing.T) {
				res, err := c.CreateWebhookEndpointWithResponse(ctx, apiclient.NewWebhookEndpoint{Url: "http://127.0.0.1:9/hook",
					Events: []apiclient.EventType{apiclient.EventTypeOrderPlaced}, Description: ptrTo("shop")})
				hook = *decoded(t, res, err, 201).JSON201
				if hook.Url != "http://127.0.0.1:9/hook" || hook.Secret == nil || !strings.HasPrefix(*hook.Secret, "whsec_") || res.Headers201.Location == nil {
					t.Fatalf("endpoint %+v, headers %+v: want it with its secret and a Location", hook, res.Headers201)
				}
				res, err = c.CreateWebhookEndpointWithResponse(ctx, apiclient.NewWebhookEndpoint{Url: "ftp://example.com/",
					Events: []apiclient.EventType{apiclient.EventTypeOrderPlaced}})
				anError(t, decoded(t, res, err, 400).JSON400, apiclient.ErrorCodeValidationFailed, 400)
				res, err = anon.CreateWebhookEndpointWithResponse(ctx, apiclient.NewWebhookEndpoint{Url: "http://127.0.0.1:9/hook",
					Events: []apiclient.EventType{apiclient.EventTypeOrderPlaced}})
				anError(t, decoded(t, res, err, 401).JSON401, apiclient.ErrorCodeMissingApiKey, 401)
			}},
			{"listWebhookEndpoints", func(t *testing.T) {
				res, err := c.ListWebhookEndpointsWithResponse(ctx, nil)
				if list := *decoded(t, res, err, 200).JSON200; len(list) != 1 || list[0].Id != hook.Id || list[0].Secret != nil {
					t.Fatalf("endpoints %+v, want the one added, without its secret", list)
				}
				res, err = anon.ListWebhookEndpointsWithResponse(ctx, nil)
				anError(t, decoded(t, res, err, 401).JSON401, apiclient.ErrorCodeMissingApiKey, 401)
			}},
			{"listWebhookEndpointsHead", func(t *testing.T) {
				res, err := c.ListWebhookEndpointsHeadWithResponse(ctx, nil)
				decoded(t, res, err, 200)
				res, err = anon.ListWebhookEndpointsHeadWithResponse(ctx, nil)
				decoded(t, res, err, 401)
			}},
			{"getWebhookEndpoint", func(t *testing.T) {
				res, err := c.GetWebhookEndpointWithResponse(ctx, hook.Id, nil)
				if got := *decoded(t, res, err, 200).JSON200; got.Id != hook.Id || got.Disabled || got.Secret != nil {
					t.Fatalf("endpoint %+v", got)
				}
				res, err = c.GetWebhookEndpointWithResponse(ctx, unknownID, nil)
				anError(t, decoded(t, res, err, 404).JSON404, apiclient.ErrorCodeNotFound, 404)
				res, err = anon.GetWebhookEndpointWithResponse(ctx, hook.Id, nil)
				anError(t, decoded(t, res, err, 401).JSON401, apiclient.ErrorCodeMissingApiKey, 401)
			}},
			{"getWebhookEndpointHead", func(t *testing.T) {
				res, err := c.GetWebhookEndpointHeadWithResponse(ctx, hook.Id, nil)
				decoded(t, res, err, 200)
				res, err = c.GetWebhookEndpointHeadWithResponse(ctx, unknownID, nil)
				decoded(t, res, err, 404)
			}},
			{"updateWebhookEndpoint", func(t *testing.T) {
				res, err := c.UpdateWebhookEndpointWithApplicationMergePatchPlusJSONBodyWithResponse(ctx, hook.Id,
					apiclient.WebhookEndpointPatch{Disabled: ptrTo(true), Events: &[]apiclient.EventType{apiclient.EventTypePetUpdated}})
				if got := *decoded(t, res, err, 200).JSON200; !got.Disabled || len(got.Events) != 1 || got.Events[0] != apiclient.EventTypePetUpdated {
					t.Fatalf("endpoint %+v, want it disabled, for pet.updated", got)
				}
				res, err = c.UpdateWebhookEndpointWithResponse(ctx, hook.Id, apiclient.WebhookEndpointPatch{Url: ptrTo("gopher://x")})
				anError(t, decoded(t, res, err, 400).JSON400, apiclient.ErrorCodeValidationFailed, 400)
				res, err = c.UpdateWebhookEndpointWithResponse(ctx, unknownID, apiclient.WebhookEndpointPatch{Disabled: ptrTo(false)})
				anError(t, decoded(t, res, err, 404).JSON404, apiclient.ErrorCodeNotFound, 404)
			}},
			{"rotateWebhookSecret", func(t *testing.T) {
				res, err := c.RotateWebhookSecretWithResponse(ctx, hook.Id)
				if got := *decoded(t, res, err, 200).JSON200; got.Secret == nil || *got.Secret == *hook.Secret {
					t.Fatalf("endpoint %+v, want a new secret", got)
				}
				res, err = c.RotateWebhookSecretWithResponse(ctx, unknownID)
				anError(t, decoded(t, res, err, 404).JSON404, apiclient.ErrorCodeNotFound, 404)
			}},
			{"deleteWebhookEndpoint", func(t *testing.T) {
				res, err := c.DeleteWebhookEndpointWithResponse(ctx, hook.Id)
				if decoded(t, res, err, 204); len(res.Body) != 0 {
					t.Fatalf("204 with a body %q", res.Body)
				}
				res, err = c.DeleteWebhookEndpointWithResponse(ctx, hook.Id)
				anError(t, decoded(t, res, err, 404).JSON404, apiclient.ErrorCodeNotFound, 404)
				res, err = anon.DeleteWebhookEndpointWithResponse(ctx, hook.Id)
				anError(t, decoded(t, res, err, 401).JSON401, apiclient.ErrorCodeMissingApiKey, 401)
			}},
		}

		var called []string
		for _, op := range operations {
			called = append(called, op.id)
		}
		_, _, documented := loadDocument(t)
		for _, o := range documented {
			if !slices.Contains(called, o.op.OperationID) {
				t.Errorf("%s (%s) is in docs/openapi.json but this test does not call it: add it to operations", o.op.OperationID, o)
			}
		}
		for _, op := range operations {
			if !slices.ContainsFunc(documented, func(o docOperation) bool { return o.op.OperationID == op.id }) {
				t.Errorf("operations calls %s, which docs/openapi.json does not have", op.id)
			}
			t.Run(op.id, op.call)
		}
	})
}

func ptrTo[T any](v T) *T { return &v }

// The generated client and its runtime are for tests and integrators: the service does not link them.
func TestTheServiceBinaryLinksNoGeneratedClient(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", "github.com/petstore/petstore").Output() // #nosec G204 -- this module
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.Contains(pkg, "oapi-codegen") || strings.HasSuffix(pkg, "/apiclient") {
			t.Errorf("the service's binary links %s", pkg)
		}
	}
}
