package app_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"math/rand/v2"
	"net/http"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/petstore/petstore/app"
	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
)

// noiseJPEG encodes a w×h picture of noise, which JPEG cannot shrink: the largest file for its
// pixels, what a camera's high-quality shot of grass or gravel is like.
func noiseJPEG(tb testing.TB, w, h int) []byte {
	tb.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(1, 2)) // #nosec G404 -- test pixels
	for i := 0; i < len(img.Pix); i += 4 {
		v := uint8(r.IntN(256))
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = v, uint8(r.IntN(256)), v/2, 255
	}
	img.Set(0, 0, color.RGBA{A: 255})
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 95}); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

func postPhoto(tb testing.TB, s *apptest.Server, petID int64, body []byte) {
	req, err := http.NewRequest(http.MethodPost, fmt.Sprintf("%s/v1/pets/%d/photos", s.URL, petID), bytes.NewReader(body))
	if err != nil {
		tb.Error(err)
		return
	}
	req.Header.Set("Authorization", "Bearer "+s.APIKey)
	req.Header.Set("Content-Type", "image/jpeg")
	res, err := http.DefaultClient.Do(req) // #nosec G704 -- the test's own server
	if err != nil {
		tb.Error(err)
		return
	}
	_ = res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		tb.Errorf("upload of %d bytes: %d", len(body), res.StatusCode)
	}
}

// benchPets makes n pets for uploads to go to (10 photos each at most).
func benchPets(tb testing.TB, s *apptest.Server, n int) []int64 {
	ids := make([]int64, n)
	store := models.NewPetStore(s.DB)
	ctx := models.WithActor(context.Background(), models.ActorCLI)
	for i := range ids {
		p, err := store.Create(ctx, models.NewPet{Name: ptrTo("Rex"), CategoryID: ptrTo[int64](1)}, nil)
		if err != nil {
			tb.Fatal(err)
		}
		ids[i] = p.ID
	}
	return ids
}

// BenchmarkPhotoUpload3MiB is one upload of a 3 MiB JPEG (12 megapixels) through the real server
// on SQLite: the answer's time is mostly the decoding, scaling and encoding.
func BenchmarkPhotoUpload3MiB(b *testing.B) {
	s := apptest.New(b, apptest.Config(b, testenv.SQLite))
	h := 3000
	body := noiseJPEG(b, 4000, h)
	for len(body) > 3<<20 {
		h = h * (3 << 20) / len(body) * 98 / 100
		body = noiseJPEG(b, 4000, h)
	}
	b.ReportMetric(float64(len(body))/(1<<20), "MiB/op")
	var pets []int64
	i := 0
	for b.Loop() {
		if i%models.MaxPhotos == 0 {
			b.StopTimer()
			pets = benchPets(b, s, 1)
			b.StartTimer()
		}
		postPhoto(b, s, pets[0], body)
		i++
	}
}

// BenchmarkEightConcurrent10MiBUploads sends eight 10 MiB JPEGs at once and reports the process's
// peak resident memory (VmHWM, reset first), the server and this client together.
func BenchmarkEightConcurrent10MiBUploads(b *testing.B) {
	s := apptest.New(b, apptest.Config(b, testenv.SQLite))
	w := 4000
	body := noiseJPEG(b, w, 4000)
	for len(body) > 10<<20 {
		w = w * (10 << 20) / len(body) * 98 / 100
		body = noiseJPEG(b, w, 4000)
	}
	b.ReportMetric(float64(len(body))/(1<<20), "MiB/upload")
	// As serve sets it (serveMemoryLimit).
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(app.ServeMemoryLimit))
	peak := 0.0
	for b.Loop() {
		b.StopTimer()
		pets := benchPets(b, s, 8)
		debug.FreeOSMemory() // the test's own garbage (the noise it drew) is not the uploads'
		// Writing 5 resets the peak the kernel keeps (VmHWM) to the present size.
		if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
			b.Skipf("cannot reset the peak RSS: %v", err)
		}
		b.StartTimer()
		var wg sync.WaitGroup
		for _, id := range pets {
			wg.Go(func() { postPhoto(b, s, id, body) })
		}
		wg.Wait()
		peak = max(peak, vmHWM(b))
	}
	b.ReportMetric(peak, "peak-RSS-MB")
}

// vmHWM reads the process's peak resident memory, in MB.
func vmHWM(tb testing.TB) float64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		tb.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			if err != nil {
				tb.Fatal(err)
			}
			return kb / 1024
		}
	}
	tb.Fatal("no VmHWM in /proc/self/status")
	return 0
}
