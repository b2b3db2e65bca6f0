package routes

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/petstore/petstore/models"
)

func petPage(names ...string) []Pet {
	page := make([]Pet, models.DefaultLimit)
	at := time.Date(2026, 11, 21, 10, 0, 0, 123456000, time.UTC)
	for i := range page {
		name := "Rex the good boy"
		if len(names) > 0 {
			name = names[i%len(names)]
		}
		page[i] = Pet{ID: int64(1_000_000 + i), Name: name, CategoryID: int64(1 + i%6),
			Status: models.PetStatuses[i%3], CreatedAt: at.Add(time.Duration(i) * time.Millisecond), UpdatedAt: at}
	}
	return page
}

// BenchmarkEncodePetPage is the JSON encoding of one default page (20 pets) of GET /v1/pets, by
// the service's encoder and, for reference, by encoding/json.
func BenchmarkEncodePetPage(b *testing.B) {
	page := petPage()
	for _, enc := range []struct {
		name string
		fn   func(any) ([]byte, error)
	}{{"service", EncodeJSON}, {"encoding-json", json.Marshal}} {
		b.Run(enc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := enc.fn(page); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
