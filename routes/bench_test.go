package routes

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/petstore/petstore/models"
)

// BenchmarkEncodePetPage is the JSON encoding of one default page (20 pets) of GET /v1/pets.
func BenchmarkEncodePetPage(b *testing.B) {
	page := make([]Pet, models.DefaultLimit)
	at := time.Date(2026, 11, 21, 10, 0, 0, 123456000, time.UTC)
	for i := range page {
		page[i] = Pet{ID: int64(1_000_000 + i), Name: "Rex the good boy", CategoryID: 1,
			Status: models.PetAvailable, CreatedAt: at, UpdatedAt: at}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(page); err != nil {
			b.Fatal(err)
		}
	}
}
