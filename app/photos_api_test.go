package app_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/petstore/petstore/app"
	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
)

type photo struct {
	ID           int64  `json:"id"`
	URL          string `json:"url"`
	ThumbnailURL string `json:"thumbnailUrl"`
	Width        int    `json:"width"`
	Height       int    `json:"height"`
	ContentType  string `json:"contentType"`
	CreatedAt    string `json:"createdAt"`
}

type petWithPhotos struct {
	ID     int64   `json:"id"`
	Photos []photo `json:"photos"`
}

// picture draws a w×h image whose left half is red and right half blue, so a turn or a flip
// shows in where the colours are.
func picture(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.RGBA{R: 220, A: 255}
			if x >= w/2 {
				c = color.RGBA{B: 220, A: 255}
			}
			img.SetRGBA(x, y, c)
		}
	}
	return img
}

// jpegBytes encodes a w×h picture as a JPEG; with orientation > 0, an EXIF APP1 segment (with a
// camera's make and a GPS position, which must not survive) records it.
func jpegBytes(t testing.TB, w, h, orientation int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, picture(w, h), &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	if orientation == 0 {
		return b
	}
	// TIFF, big-endian: IFD0 with Orientation (0x0112) and Make (0x010F, "SecretCam").
	tiff := []byte("MM\x00\x2a\x00\x00\x00\x08")
	tiff = binary.BigEndian.AppendUint16(tiff, 2)
	tiff = append(tiff, 0x01, 0x12, 0x00, 0x03, 0, 0, 0, 1)
	tiff = binary.BigEndian.AppendUint16(tiff, uint16(orientation))
	tiff = append(tiff, 0, 0)
	tiff = append(tiff, 0x01, 0x0F, 0x00, 0x02, 0, 0, 0, 10, 0, 0, 0, 38)
	tiff = append(tiff, 0, 0, 0, 0)
	tiff = append(tiff, "SecretCam\x00"...)
	app1 := append([]byte("Exif\x00\x00"), tiff...)
	seg := append([]byte{0xFF, 0xE1}, binary.BigEndian.AppendUint16(nil, uint16(len(app1)+2))...)
	seg = append(seg, app1...)
	return append(append(append([]byte{}, b[:2]...), seg...), b[2:]...)
}

func pngBytes(t testing.TB, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, picture(w, h)); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// bombPNG is a small PNG whose header claims w×h pixels: what a decompression bomb looks like
// before it is decoded.
func bombPNG(t testing.TB, w, h uint32) []byte {
	t.Helper()
	b := pngBytes(t, 8, 8)
	// The IHDR chunk's data starts at byte 16: width, height; its CRC follows the 13 bytes.
	binary.BigEndian.PutUint32(b[16:], w)
	binary.BigEndian.PutUint32(b[20:], h)
	binary.BigEndian.PutUint32(b[29:], crc32.ChecksumIEEE(b[12:29]))
	return b
}

func uploadPhoto(t testing.TB, s *apptest.Server, petID int64, contentType string, body []byte, header ...string) *apptest.Response {
	t.Helper()
	req := s.NewRequest(t, http.MethodPost, fmt.Sprintf("/v1/pets/%d/photos", petID), bytes.NewReader(body))
	req.Header.Set("Content-Type", contentType)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return s.Do(t, req)
}

func addPhoto(t testing.TB, s *apptest.Server, petID int64, contentType string, body []byte) photo {
	t.Helper()
	res := uploadPhoto(t, s, petID, contentType, body)
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("POST /v1/pets/%d/photos: %d, want 201: %s", petID, res.StatusCode, res.Body)
	}
	var ph photo
	res.JSON(t, &ph)
	return ph
}

// fetch GETs an absolute URL without the API key, as a browser showing a catalogue does.
func fetch(t testing.TB, url string, header ...string) *apptest.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(res.Body); err != nil {
		t.Fatal(err)
	}
	return &apptest.Response{Response: res, Body: buf.Bytes()}
}

func petPhotos(t testing.TB, s *apptest.Server, petID int64) []photo {
	t.Helper()
	var list []petWithPhotos
	s.Get(t, fmt.Sprintf("/v1/pets?id=%d", petID)).JSON(t, &list)
	if len(list) != 1 {
		t.Fatalf("GET /v1/pets?id=%d: %d pets", petID, len(list))
	}
	return list[0].Photos
}

func TestAnUploadedPhotoIsTurnedScaledStrippedAndServedFromMedia(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, apptest.Config(t, store))
		p := createPet(t, s, map[string]any{"name": "Rex", "categoryId": 1})
		if got := petPhotos(t, s, p.ID); got == nil || len(got) != 0 {
			t.Fatalf("a new pet's photos: %v, want []", got)
		}

		// Shot 3000×1000 with the camera turned: EXIF orientation 6 says turn it clockwise.
		res := uploadPhoto(t, s, p.ID, "image/jpeg", jpegBytes(t, 3000, 1000, 6))
		if res.StatusCode != http.StatusCreated {
			t.Fatalf("upload: %d, want 201: %s", res.StatusCode, res.Body)
		}
		var ph photo
		res.JSON(t, &ph)
		if want := fmt.Sprintf("%s/v1/pets/%d/photos/%d", s.URL, p.ID, ph.ID); res.Header.Get("Location") != want {
			t.Fatalf("Location %q, want %q", res.Header.Get("Location"), want)
		}
		if ph.Width != 683 || ph.Height != 2048 || ph.ContentType != "image/jpeg" {
			t.Fatalf("photo %+v: want 683×2048 image/jpeg (turned upright, long side 2,048)", ph)
		}
		if !strings.HasPrefix(ph.URL, s.URL+"/media/") || !strings.HasSuffix(ph.URL, ".jpg") || !strings.HasPrefix(ph.ThumbnailURL, s.URL+"/media/") {
			t.Fatalf("photo URLs %q, %q: want absolute URLs under %s/media/", ph.URL, ph.ThumbnailURL, s.URL)
		}

		img := fetch(t, ph.URL)
		if img.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d", ph.URL, img.StatusCode)
		}
		hash := strings.TrimSuffix(ph.URL[strings.LastIndex(ph.URL, "/")+1:], ".jpg")
		for h, want := range map[string]string{"Content-Type": "image/jpeg", "Cache-Control": "public, max-age=31536000, immutable",
			"X-Content-Type-Options": "nosniff", "ETag": `"` + hash + `"`, "Accept-Ranges": "bytes"} {
			if got := img.Header.Get(h); got != want {
				t.Errorf("GET %s: %s %q, want %q", ph.URL, h, got, want)
			}
		}
		decoded, err := jpeg.Decode(bytes.NewReader(img.Body))
		if err != nil {
			t.Fatal(err)
		}
		if b := decoded.Bounds(); b.Dx() != 683 || b.Dy() != 2048 {
			t.Fatalf("served image is %v, want 683×2048", b)
		}
		// Turned clockwise, the red left half is now the top.
		if r, _, bl, _ := decoded.At(340, 100).RGBA(); r < bl {
			t.Fatalf("the top of the served image is not red: not turned as EXIF said")
		}
		if bytes.Contains(img.Body, []byte("Exif")) || bytes.Contains(img.Body, []byte("SecretCam")) {
			t.Fatal("the served image still carries the EXIF metadata")
		}
		thumb := fetch(t, ph.ThumbnailURL)
		tc, _, err := image.DecodeConfig(bytes.NewReader(thumb.Body))
		if err != nil || tc.Width != 133 || tc.Height != 400 {
			t.Fatalf("thumbnail: %v %+v, want 133×400", err, tc)
		}

		// Ranges, revalidation and unknown addresses.
		part := fetch(t, ph.URL, "Range", "bytes=0-99")
		if part.StatusCode != http.StatusPartialContent || len(part.Body) != 100 || !bytes.Equal(part.Body, img.Body[:100]) ||
			part.Header.Get("Content-Range") != fmt.Sprintf("bytes 0-99/%d", len(img.Body)) {
			t.Fatalf("Range bytes=0-99: %d, %d bytes, Content-Range %q", part.StatusCode, len(part.Body), part.Header.Get("Content-Range"))
		}
		tail := fetch(t, ph.URL, "Range", "bytes=-10")
		if tail.StatusCode != http.StatusPartialContent || !bytes.Equal(tail.Body, img.Body[len(img.Body)-10:]) {
			t.Fatalf("Range bytes=-10: %d, %d bytes", tail.StatusCode, len(tail.Body))
		}
		if r := fetch(t, ph.URL, "Range", fmt.Sprintf("bytes=%d-", len(img.Body))); r.StatusCode != http.StatusRequestedRangeNotSatisfiable ||
			r.Header.Get("Content-Range") != fmt.Sprintf("bytes */%d", len(img.Body)) {
			t.Fatalf("Range past the end: %d, Content-Range %q; want 416 bytes */%d", r.StatusCode, r.Header.Get("Content-Range"), len(img.Body))
		}
		if r := fetch(t, ph.URL, "If-None-Match", `"`+hash+`"`); r.StatusCode != http.StatusNotModified {
			t.Fatalf("If-None-Match with its ETag: %d, want 304", r.StatusCode)
		}
		for _, u := range []string{"/media/" + strings.Repeat("0", 64) + ".jpg", "/media/" + hash + ".png", "/media/..%2Fpetstore.db", "/media/" + hash} {
			if r := fetch(t, s.URL+u); r.StatusCode != http.StatusNotFound {
				t.Fatalf("GET %s: %d, want 404", u, r.StatusCode)
			}
		}

		// The photo through the API: alone, and as the pet's cover.
		var got photo
		s.Get(t, fmt.Sprintf("/v1/pets/%d/photos/%d", p.ID, ph.ID)).JSON(t, &got)
		if got != ph {
			t.Fatalf("GET the photo: %+v, want %+v", got, ph)
		}
		if list := petPhotos(t, s, p.ID); len(list) != 1 || list[0] != ph {
			t.Fatalf("the pet's photos: %+v, want [%+v]", list, ph)
		}
		if r := s.Get(t, fmt.Sprintf("/v1/pets/%d/photos/%d", p.ID, ph.ID+1)); r.StatusCode != http.StatusNotFound {
			t.Fatalf("GET an unknown photo: %d, want 404", r.StatusCode)
		}
	})
}

func TestPhotoUploadsOfEachTypeKeepOrChangeTheirType(t *testing.T) {
	t.Parallel()
	s := apptest.New(t, apptest.Config(t, testenv.SQLite))
	p := createPet(t, s, map[string]any{"name": "Rex", "categoryId": 1})
	webp, err := os.ReadFile("testdata/photo.webp")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		contentType string
		body        []byte
		want        string
	}{
		{"image/png", pngBytes(t, 300, 200), "image/png"},
		{"image/webp", webp, "image/jpeg"}, // opaque WebP: re-encoded as JPEG
		{"image/jpeg; charset=binary", jpegBytes(t, 100, 100, 0), "image/jpeg"},
	} {
		ph := addPhoto(t, s, p.ID, tc.contentType, tc.body)
		if ph.ContentType != tc.want {
			t.Fatalf("%s upload stored as %s, want %s", tc.contentType, ph.ContentType, tc.want)
		}
		img := fetch(t, ph.URL)
		if _, format, err := image.DecodeConfig(bytes.NewReader(img.Body)); err != nil || "image/"+format != tc.want || img.Header.Get("Content-Type") != tc.want {
			t.Fatalf("%s: served %s (%v) as %q, want %s", tc.contentType, format, err, img.Header.Get("Content-Type"), tc.want)
		}
	}
}

func TestPhotoUploadsThatAreNotAcceptableImagesAreRefusedAndAddNothing(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, apptest.Config(t, store))
		p := createPet(t, s, map[string]any{"name": "Rex", "categoryId": 1})
		small := pngBytes(t, 10, 10)
		for _, tc := range []struct {
			name        string
			contentType string
			body        []byte
			status      int
			code        string
		}{
			{"another type", "text/plain", small, http.StatusUnsupportedMediaType, "unsupported_media_type"},
			{"a GIF", "image/gif", small, http.StatusUnsupportedMediaType, "unsupported_media_type"},
			{"not an image", "image/jpeg", []byte("definitely not a JPEG"), http.StatusBadRequest, "validation_failed"},
			{"a PNG said to be a JPEG", "image/jpeg", small, http.StatusBadRequest, "validation_failed"},
			{"a truncated JPEG", "image/jpeg", jpegBytes(t, 200, 200, 0)[:400], http.StatusBadRequest, "validation_failed"},
			{"over 40 megapixels", "image/png", bombPNG(t, 8000, 5001), http.StatusBadRequest, "validation_failed"},
			{"a decompression bomb", "image/png", bombPNG(t, 100000, 100000), http.StatusBadRequest, "validation_failed"},
			{"empty", "image/png", nil, http.StatusBadRequest, "validation_failed"},
		} {
			res := uploadPhoto(t, s.Invalid(), p.ID, tc.contentType, tc.body)
			if res.StatusCode != tc.status {
				t.Fatalf("%s: %d, want %d: %s", tc.name, res.StatusCode, tc.status, res.Body)
			}
			if code, _ := res.ErrorBody(t); code != tc.code {
				t.Fatalf("%s: code %s, want %s", tc.name, code, tc.code)
			}
		}
		big := append(pngBytes(t, 10, 10), make([]byte, 10<<20)...)
		res := uploadPhoto(t, s.Invalid(), p.ID, "image/png", big)
		if code, _ := res.ErrorBody(t); res.StatusCode != http.StatusRequestEntityTooLarge || code != "payload_too_large" {
			t.Fatalf("over 10 MiB: %d %s, want 413 payload_too_large", res.StatusCode, code)
		}
		if r := uploadPhoto(t, s, p.ID+100, "image/png", small); r.StatusCode != http.StatusNotFound {
			t.Fatalf("a photo of no pet: %d, want 404", r.StatusCode)
		}
		if got := petPhotos(t, s, p.ID); len(got) != 0 {
			t.Fatalf("refused uploads added photos: %+v", got)
		}
		var rows int64
		if err := s.DB.Model(&models.Photo{}).Count(&rows).Error; err != nil || rows != 0 {
			t.Fatalf("%d photo rows (%v), want none", rows, err)
		}

		for i := range models.MaxPhotos {
			addPhoto(t, s, p.ID, "image/png", pngBytes(t, 10+i, 10))
		}
		res = uploadPhoto(t, s, p.ID, "image/png", small)
		if code, _ := res.ErrorBody(t); res.StatusCode != http.StatusConflict || code != "conflict" {
			t.Fatalf("an 11th photo: %d %s, want 409 conflict", res.StatusCode, code)
		}
	})
}

func TestAPhotoUploadRetriedWithItsIdempotencyKeyIsAddedOnce(t *testing.T) {
	t.Parallel()
	s := apptest.New(t, apptest.Config(t, testenv.Postgres))
	p := createPet(t, s, map[string]any{"name": "Rex", "categoryId": 1})
	body := jpegBytes(t, 640, 480, 0)
	first := uploadPhoto(t, s, p.ID, "image/jpeg", body, "Idempotency-Key", "upload-1")
	again := uploadPhoto(t, s, p.ID, "image/jpeg", body, "Idempotency-Key", "upload-1")
	if first.StatusCode != http.StatusCreated || again.StatusCode != http.StatusCreated || !bytes.Equal(first.Body, again.Body) ||
		again.Header.Get("Idempotent-Replayed") != "true" || again.Header.Get("Location") != first.Header.Get("Location") {
		t.Fatalf("retry: %d %s (replayed %q), want the first answer %d %s", again.StatusCode, again.Body,
			again.Header.Get("Idempotent-Replayed"), first.StatusCode, first.Body)
	}
	other := uploadPhoto(t, s, p.ID, "image/jpeg", jpegBytes(t, 641, 480, 0), "Idempotency-Key", "upload-1")
	if other.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("another image under the same key: %d, want 422", other.StatusCode)
	}
	if got := petPhotos(t, s, p.ID); len(got) != 1 {
		t.Fatalf("%d photos after a retried upload, want 1", len(got))
	}
}

func TestScaleOutAPhotoUploadedThroughOneInstanceIsServedByTheOtherFromTheBucket(t *testing.T) {
	t.Parallel()
	bucket := testenv.S3Bucket(t)
	cfg := apptest.Config(t, testenv.Postgres)
	cfg.MediaBucket = bucket.BucketURL()
	cfg.DBMaxOpenConns, cfg.DBMaxIdleConns = 4, 4
	a, b := apptest.New(t, cfg), apptest.New(t, cfg)

	p := createPet(t, a, map[string]any{"name": "Rex", "categoryId": 1})
	ph := addPhoto(t, a, p.ID, "image/jpeg", jpegBytes(t, 1200, 900, 0))
	key := ph.URL[strings.LastIndex(ph.URL, "/")+1:]
	if _, err := bucket.Client(t).StatObject(t.Context(), bucket.Bucket, key, minio.StatObjectOptions{}); err != nil {
		t.Fatalf("the image is not in the bucket: %v", err)
	}
	onA := fetch(t, ph.URL)
	var got photo
	b.Get(t, fmt.Sprintf("/v1/pets/%d/photos/%d", p.ID, ph.ID)).JSON(t, &got)
	if got.URL != b.URL+"/media/"+key {
		t.Fatalf("B answers the URL %q, want %s/media/%s", got.URL, b.URL, key)
	}
	onB := fetch(t, got.URL)
	if onB.StatusCode != http.StatusOK || !bytes.Equal(onB.Body, onA.Body) || onB.Header.Get("ETag") != onA.Header.Get("ETag") {
		t.Fatalf("B serves %d, %d bytes, ETag %q; A served %d bytes, ETag %q", onB.StatusCode, len(onB.Body), onB.Header.Get("ETag"),
			len(onA.Body), onA.Header.Get("ETag"))
	}
	part := fetch(t, got.URL, "Range", "bytes=10-19")
	if part.StatusCode != http.StatusPartialContent || !bytes.Equal(part.Body, onA.Body[10:20]) {
		t.Fatalf("B's range from the bucket: %d %d bytes", part.StatusCode, len(part.Body))
	}
	if list := petPhotos(t, b, p.ID); len(list) != 1 || list[0].ID != ph.ID {
		t.Fatalf("B lists the pet's photos as %+v", list)
	}
}

func TestPhotoURLsStartWithTheConfiguredMediaURL(t *testing.T) {
	t.Parallel()
	cfg := apptest.Config(t, testenv.SQLite)
	cfg.MediaURL = "https://cdn.example.com/petstore"
	s := apptest.New(t, cfg)
	p := createPet(t, s, map[string]any{"name": "Rex", "categoryId": 1})
	ph := addPhoto(t, s, p.ID, "image/png", pngBytes(t, 20, 20))
	if !strings.HasPrefix(ph.URL, "https://cdn.example.com/petstore/") || !strings.HasPrefix(ph.ThumbnailURL, "https://cdn.example.com/petstore/") {
		t.Fatalf("URLs %q and %q, want them under PETSTORE_MEDIA_URL", ph.URL, ph.ThumbnailURL)
	}
	key := ph.URL[strings.LastIndex(ph.URL, "/")+1:]
	if r := fetch(t, s.URL+"/media/"+key); r.StatusCode != http.StatusOK {
		t.Fatalf("the service still serves /media/%s: %d", key, r.StatusCode)
	}
}

func TestMovingAndRemovingPhotosUpdatesThePetWithAnEventAndAnAuditEntry(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := apptest.New(t, apptest.Config(t, store))
		p := createPet(t, s, map[string]any{"name": "Rex", "categoryId": 1})
		a := addPhoto(t, s, p.ID, "image/png", pngBytes(t, 30, 20))
		b := addPhoto(t, s, p.ID, "image/png", pngBytes(t, 31, 20))
		c := addPhoto(t, s, p.ID, "image/png", pngBytes(t, 32, 20))
		ids := func() []int64 {
			var out []int64
			for _, ph := range petPhotos(t, s, p.ID) {
				out = append(out, ph.ID)
			}
			return out
		}
		if got := fmt.Sprint(ids()); got != fmt.Sprint([]int64{a.ID, b.ID, c.ID}) {
			t.Fatalf("photos %s, want in upload order", got)
		}

		move := func(id int64, body string) *apptest.Response {
			s := s
			if !strings.Contains(body, `"position":`) || strings.Contains(body, "-") || strings.Contains(body, `"first"`) {
				s = s.Invalid()
			}
			req := s.NewRequest(t, http.MethodPatch, fmt.Sprintf("/v1/pets/%d/photos/%d", p.ID, id), strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			return s.Do(t, req)
		}
		res := move(c.ID, `{"position":0}`)
		var moved photo
		if res.JSON(t, &moved); res.StatusCode != http.StatusOK || moved.ID != c.ID {
			t.Fatalf("PATCH position 0: %d %s", res.StatusCode, res.Body)
		}
		if got := fmt.Sprint(ids()); got != fmt.Sprint([]int64{c.ID, a.ID, b.ID}) {
			t.Fatalf("after making %d the cover: %s", c.ID, got)
		}
		if r := move(c.ID, `{"position":99}`); r.StatusCode != http.StatusOK || fmt.Sprint(ids()) != fmt.Sprint([]int64{a.ID, b.ID, c.ID}) {
			t.Fatalf("position past the last: %d, photos %v; want it last", r.StatusCode, ids())
		}
		for body, status := range map[string]int{`{}`: 400, `{"position":-1}`: 400, `{"position":"first"}`: 400} {
			if r := move(a.ID, body); r.StatusCode != status {
				t.Fatalf("PATCH %s: %d, want %d", body, r.StatusCode, status)
			}
		}

		del := s.Do(t, s.NewRequest(t, http.MethodDelete, fmt.Sprintf("/v1/pets/%d/photos/%d", p.ID, a.ID), nil))
		if del.StatusCode != http.StatusNoContent {
			t.Fatalf("DELETE: %d %s", del.StatusCode, del.Body)
		}
		if got := fmt.Sprint(ids()); got != fmt.Sprint([]int64{b.ID, c.ID}) {
			t.Fatalf("after removing the cover: %s, want the next one the cover", got)
		}
		if r := s.Do(t, s.NewRequest(t, http.MethodDelete, fmt.Sprintf("/v1/pets/%d/photos/%d", p.ID, a.ID), nil)); r.StatusCode != http.StatusNotFound {
			t.Fatalf("DELETE again: %d, want 404", r.StatusCode)
		}

		// Three uploads, two moves and a removal: six pet.updated, each with the photos before.
		updates := settledEvents(t, s, "?type=pet.updated", 6)
		if len(updates) != 6 {
			t.Fatalf("%d pet.updated events, want 6", len(updates))
		}
		var last struct {
			Photos []photo `json:"photos"`
		}
		var prev struct {
			Photos    []photo `json:"photos"`
			UpdatedAt string  `json:"updatedAt"`
		}
		if err := json.Unmarshal(updates[5].Data.Object, &last); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(updates[5].Data.Previous, &prev); err != nil {
			t.Fatal(err)
		}
		if len(last.Photos) != 2 || len(prev.Photos) != 3 || prev.Photos[0].ID != a.ID || prev.UpdatedAt == "" {
			t.Fatalf("the removal's event: photos %+v, previous %+v; want 2 photos after, 3 before", last.Photos, prev)
		}
		entries, err := models.NewAuditStore(s.DB).List(t.Context(), models.AuditFilter{}, models.Page{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		var photoChanges []string
		for _, e := range entries.Items {
			if e.ObjectType == "pet" && strings.Contains(e.After, "photos") {
				photoChanges = append(photoChanges, e.Before+" → "+e.After)
			}
		}
		if len(photoChanges) != 6 || !strings.Contains(photoChanges[0], fmt.Sprintf(`"%d,%d"`, b.ID, c.ID)) {
			t.Fatalf("audit entries of the photos: %q; want 6, newest first ending with %d,%d", photoChanges, b.ID, c.ID)
		}
	})
}

func TestADeletedPetKeepsItsPhotosAndARestoredOneShowsThem(t *testing.T) {
	t.Parallel()
	s := apptest.New(t, apptest.Config(t, testenv.SQLite))
	p := createPet(t, s, map[string]any{"name": "Rex", "categoryId": 1})
	ph := addPhoto(t, s, p.ID, "image/png", pngBytes(t, 30, 20))
	if r := s.Do(t, s.NewRequest(t, http.MethodDelete, fmt.Sprintf("/v1/pets/%d", p.ID), nil)); r.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE the pet: %d", r.StatusCode)
	}
	if r := fetch(t, ph.URL); r.StatusCode != http.StatusOK {
		t.Fatalf("a deleted pet's photo: %d, want still served", r.StatusCode)
	}
	if r := s.Get(t, fmt.Sprintf("/v1/pets/%d/photos/%d", p.ID, ph.ID)); r.StatusCode != http.StatusNotFound {
		t.Fatalf("GET a deleted pet's photo: %d, want 404", r.StatusCode)
	}
	restored, err := models.NewPetStore(s.DB).Restore(t.Context(), p.ID, models.ActorCLI)
	if err != nil || len(restored.Photos) != 1 || restored.Photos[0].ID != ph.ID {
		t.Fatalf("restored pet %+v, %v; want its photo back", restored, err)
	}
	// Swept a day later, the photo a row still names stays.
	if n, err := app.SweepOrphans(t.Context(), app.OpenMedia(s.Cfg, slog.New(slog.DiscardHandler)), models.NewPhotoStore(s.DB), time.Now().Add(48*time.Hour)); err != nil || n != 0 {
		t.Fatalf("sweep removed %d (%v), want none", n, err)
	}
}

func TestBlobsNoPhotoNamesAreSweptAfterADayOnBothStores(t *testing.T) {
	t.Parallel()
	for _, onS3 := range []bool{false, true} {
		t.Run(map[bool]string{false: "folder", true: "s3"}[onS3], func(t *testing.T) {
			t.Parallel()
			cfg := apptest.Config(t, testenv.Postgres)
			if onS3 {
				cfg.MediaBucket = testenv.S3Bucket(t).BucketURL()
			}
			s := apptest.New(t, cfg)
			store := app.OpenMedia(cfg, slog.New(slog.DiscardHandler))
			p := createPet(t, s, map[string]any{"name": "Rex", "categoryId": 1})
			kept := addPhoto(t, s, p.ID, "image/png", pngBytes(t, 30, 20))
			// What a crash between storing and committing leaves: a blob no row names.
			orphan := bytes.Repeat([]byte{7}, 100)
			sum := sha256.Sum256(orphan)
			orphanKey := hex.EncodeToString(sum[:]) + ".jpg"
			if err := store.Put(t.Context(), orphanKey, "image/jpeg", orphan); err != nil {
				t.Fatal(err)
			}
			photos := models.NewPhotoStore(s.DB)
			if n, err := app.SweepOrphans(t.Context(), store, photos, time.Now()); err != nil || n != 0 {
				t.Fatalf("a sweep within the day removed %d (%v), want none", n, err)
			}
			if n, err := app.SweepOrphans(t.Context(), store, photos, time.Now().Add(25*time.Hour)); err != nil || n != 1 {
				t.Fatalf("a sweep a day later removed %d (%v), want the orphan", n, err)
			}
			if _, err := store.Stat(t.Context(), orphanKey); err == nil {
				t.Fatal("the orphan is still stored")
			}
			for _, u := range []string{kept.URL, kept.ThumbnailURL} {
				if r := fetch(t, u); r.StatusCode != http.StatusOK {
					t.Fatalf("GET %s after the sweep: %d", u, r.StatusCode)
				}
			}
		})
	}
}

func TestSeedDrawsPhotosForSomePetsOnce(t *testing.T) {
	t.Parallel()
	cfg := apptest.Config(t, testenv.SQLite)
	env := cliEnv(cfg)
	if out := runOK(t, env, "seed", "--pets", "20"); !strings.Contains(out, "and 12 photos") {
		t.Fatalf("seed said %q, want 12 photos", out)
	}
	if out := runOK(t, env, "seed", "--pets", "20"); !strings.Contains(out, "and 0 photos") {
		t.Fatalf("a second seed said %q, want no more photos", out)
	}
	s := apptest.New(t, cfg)
	var list []petWithPhotos
	s.Get(t, "/v1/pets?limit=20").JSON(t, &list)
	with := 0
	for _, p := range list {
		if len(p.Photos) == 1 {
			with++
			if r := fetch(t, p.Photos[0].ThumbnailURL); r.StatusCode != http.StatusOK || r.Header.Get("Content-Type") != "image/jpeg" {
				t.Fatalf("pet %d's thumbnail: %d %s", p.ID, r.StatusCode, r.Header.Get("Content-Type"))
			}
		}
	}
	if with != 12 {
		t.Fatalf("%d of 20 seeded pets have a photo, want 12", with)
	}
}
