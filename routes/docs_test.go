package routes

import "testing"

// The documentation's scripts are compressed by the first request that asks for each encoding;
// every later one is sent the same bytes, not compressed again.
func TestDocsAssetsAreCompressedOnce(t *testing.T) {
	d := newDocsSite("https://api.example.com", "https://staging.example.com")
	if len(d.assets) != 4 {
		t.Fatalf("%d docs assets, want Swagger UI's script, stylesheet and start script, and Redoc's script", len(d.assets))
	}
	for name, a := range d.assets {
		for enc, compress := range map[string]func() []byte{"gzip": a.gzip, "br": a.brotli} {
			first, again := compress(), compress()
			if len(first) == 0 || &first[0] != &again[0] {
				t.Errorf("%s: %s made again for a second request", name, enc)
			}
		}
	}
}
