package models

import (
	"bytes"
	"encoding/json"
	"time"
)

// The response types below are the API's JSON of a pet, an order and an event, and the types
// the API document is generated from (the name after @name is the schema's). They are defined
// here, beside the domain types they convert from, because an event carries its object as the
// API shows it and is written by the store inside the transaction of its change: the same type,
// encoded by the same EncodeJSON, is in a GET's answer, in GET /v1/events and in a delivery.

// PetResponse is an animal as the API returns it.
type PetResponse struct {
	// Unique identifier assigned by the service on creation.
	ID int64 `json:"id" example:"42" format:"int64" validate:"required"`
	// The animal's name.
	Name string `json:"name" example:"Rex" minLength:"1" maxLength:"100" validate:"required"`
	// Identifier of the category the animal belongs to.
	CategoryID int64 `json:"categoryId" example:"1" format:"int64" validate:"required"`
	// Availability of the animal.
	Status PetStatus `json:"status" example:"available" validate:"required"`
	// What a buyer reads about the animal; line breaks are kept. Empty when none was given.
	Description string `json:"description" example:"A calm Labrador puppy, house-trained." maxLength:"2000" validate:"required"`
	// The animal's tags, sorted; empty when none was given.
	Tags []string `json:"tags" example:"calm,puppy" validate:"required,max=10,unique" extensions:"x-items-min-length=1,x-items-max-length=32,x-items-pattern=^[a-z0-9-]+$"`
	// When the animal was added.
	CreatedAt time.Time `json:"createdAt" format:"date-time" example:"2026-11-21T10:00:00Z" readonly:"true" validate:"required"`
	// When the animal last changed.
	UpdatedAt time.Time `json:"updatedAt" format:"date-time" example:"2026-11-21T10:00:00Z" readonly:"true" validate:"required"`
	// The animal's photos in display order, at most 10; the first is its cover. Empty when it has none. Added, moved and removed through /pets/{petId}/photos.
	Photos []PhotoResponse `json:"photos" readonly:"true" validate:"required,max=10"`
} //	@name	Pet

// Response is the pet as the API returns it.
func (p *Pet) Response() PetResponse {
	return PetResponse{ID: p.ID, Name: p.Name, CategoryID: p.CategoryID, Status: p.Status,
		Description: p.Description, Tags: p.Tags.List(), CreatedAt: p.CreatedAt.UTC(), UpdatedAt: p.UpdatedAt.UTC(),
		Photos: photosResponse(p.Photos)}
}

// OrderResponse is a store order as the API returns it.
type OrderResponse struct {
	// Unique identifier assigned by the service.
	ID int64 `json:"id" example:"7" format:"int64" validate:"required"`
	// The animal ordered.
	PetID int64 `json:"petId" example:"42" format:"int64" validate:"required"`
	// Always 1: an order is for one animal.
	Quantity int32 `json:"quantity" example:"1" format:"int32" validate:"required"`
	// When the client asked for the animal to be shipped; absent when not given.
	ShipDate *time.Time `json:"shipDate,omitempty" example:"2030-12-01T10:00:00Z" format:"date-time"`
	// Where the order is: placed → approved → delivered, or cancelled from placed or approved.
	Status string `json:"status" enums:"placed,approved,delivered,cancelled" example:"placed" validate:"required"`
	// True once the order is delivered.
	Complete bool `json:"complete" example:"false" validate:"required"`
	// When the order was placed.
	CreatedAt time.Time `json:"createdAt" example:"2026-11-21T10:00:00Z" format:"date-time" readonly:"true" validate:"required"`
} //	@name	Order

// Response is the order as the API returns it.
func (o *Order) Response() OrderResponse {
	r := OrderResponse{ID: o.ID, PetID: o.PetID, Quantity: o.Quantity, Status: string(o.Status), Complete: o.Complete,
		CreatedAt: o.CreatedAt.UTC()}
	if o.ShipDate != nil {
		t := o.ShipDate.UTC()
		r.ShipDate = &t
	}
	return r
}

// EventResponse is something that happened to a pet or an order, as the API lists it and webhook
// deliveries send it.
type EventResponse struct {
	// Unique identifier: evt_ and 26 characters. Ids sort in the order the events were recorded; a delivery's webhook-id is its event's id.
	ID string `json:"id" example:"evt_000000001dnba0000000000428" minLength:"30" maxLength:"30" validate:"required"`
	// What happened. Clients must ignore types they do not know.
	Type EventType `json:"type" example:"order.approved" validate:"required"`
	// When the event was recorded, in the transaction of its change.
	CreatedAt time.Time `json:"createdAt" format:"date-time" example:"2026-11-21T10:00:00Z" validate:"required"`
	// The object and what changed.
	Data struct {
		// The Pet (pet.* events) or the Order (order.* events) as it was right after the change.
		Object json.RawMessage `json:"object" swaggertype:"object" extensions:"x-one-of=Pet|Order" validate:"required"`
		// For updates and order actions, the changed fields' earlier values, by the object's field names; absent for a creation or deletion.
		Previous json.RawMessage `json:"previous,omitempty" swaggertype:"object"`
	} `json:"data" validate:"required"`
} //	@name	Event

// Response is the event as the API shows it; its stored data is already the API's JSON.
func (e *Event) Response() (EventResponse, error) {
	r := EventResponse{ID: e.PublicID(), Type: e.Type, CreatedAt: e.CreatedAt.UTC()}
	err := json.Unmarshal([]byte(e.Data), &r.Data)
	return r, err
}

// Payload is the event as deliveries send it: its Response, encoded.
func (e *Event) Payload() ([]byte, error) {
	r, err := e.Response()
	if err != nil {
		return nil, err
	}
	return EncodeJSON(r)
}

// EncodeJSON writes every JSON the API sends: answers, events and deliveries. It is
// encoding/json's, except that <, > and & are written as they are: the API's JSON is not HTML,
// and "Bearer <key>" should read so on the wire.
func EncodeJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
