package app_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
)

// The service killed with SIGKILL while uploads are under way leaves no photo without its
// images, and loses none it answered 201 for: the images are stored before the row is committed.
func TestAKillDuringUploadsLeavesNoPhotoWithoutItsImages(t *testing.T) {
	t.Parallel()
	cfg := apptest.Config(t, testenv.Postgres)
	media := t.TempDir()
	env := map[string]string{"DATABASE_URL": cfg.DatabaseURL, "PETSTORE_MEDIA_DIR": media}
	bin := apptest.Binary(t)
	p := apptest.StartProcess(t, bin, env)
	client := apptest.KeyClient(apptest.CreateKey(t, bin, env), time.Minute)

	// Eight pets hold up to 80 photos; eight uploaders keep one upload each under way.
	const pets, uploaders = 8, 8
	petIDs := make([]int64, pets)
	for i := range petIDs {
		res, err := client.Post(p.URL+"/v1/pets", "application/json", bytes.NewReader([]byte(fmt.Sprintf(`{"name":"Pet %d","categoryId":1}`, i))))
		if err != nil {
			t.Fatal(err)
		}
		var pet struct{ ID int64 }
		err = json.NewDecoder(res.Body).Decode(&pet)
		res.Body.Close()
		if err != nil || res.StatusCode != http.StatusCreated {
			t.Fatalf("create pet: %d %v", res.StatusCode, err)
		}
		petIDs[i] = pet.ID
	}
	var (
		mu       sync.Mutex
		answered []int64 // the photos answered 201
		n        atomic.Int64
		wg       sync.WaitGroup
	)
	for u := range uploaders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				// Each upload a picture of its own size, so that each is a blob of its own.
				body := jpegBytes(t, 300+u*40+i, 200+i, 0)
				res, err := client.Post(fmt.Sprintf("%s/v1/pets/%d/photos", p.URL, petIDs[u]), "image/jpeg", bytes.NewReader(body))
				if err != nil {
					return // the process is gone
				}
				var ph photo
				err = json.NewDecoder(res.Body).Decode(&ph)
				res.Body.Close()
				if res.StatusCode != http.StatusCreated || err != nil {
					return // the pet's tenth photo, or the process went away mid-answer
				}
				mu.Lock()
				answered = append(answered, ph.ID)
				mu.Unlock()
				n.Add(1)
			}
		}()
	}
	eventually(t, "a dozen uploads answered", func() bool { return n.Load() >= 12 })
	p.Kill(t)
	wg.Wait()

	db := apptest.OpenDB(t, cfg)
	var rows []models.Photo
	if err := db.Find(&rows).Error; err != nil {
		t.Fatal(err)
	}
	stored := map[int64]bool{}
	for _, r := range rows {
		stored[r.ID] = true
		for _, key := range []string{r.Key, r.ThumbKey} {
			if _, err := os.Stat(filepath.Join(media, key)); err != nil {
				t.Errorf("photo %d of pet %d names %s, which is not stored: %v", r.ID, r.PetID, key, err)
			}
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, id := range answered {
		if !stored[id] {
			t.Errorf("photo %d was answered 201 but is not stored", id)
		}
	}
	t.Logf("%d uploads answered 201 before the kill; %d photos stored", len(answered), len(rows))
}

// A photos' store that does not answer leaves the instance ready, serving the catalogue, and
// /readyz says so without naming the folder or bucket.
func TestReadinessSaysWhenThePhotosStoreDoesNotAnswer(t *testing.T) {
	t.Parallel()
	cfg := apptest.Config(t, testenv.SQLite)
	if res := apptest.New(t, cfg).Get(t, "/readyz"); res.StatusCode != http.StatusOK || !strings.Contains(string(res.Body), `"media":"ok"`) {
		t.Fatalf("/readyz with its media folder: %d %s", res.StatusCode, res.Body)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg.MediaDir = filepath.Join(file, "media") // under a file: no folder can be there
	res := apptest.New(t, cfg).Get(t, "/readyz")
	if res.StatusCode != http.StatusOK || !strings.Contains(string(res.Body), `"media":"degraded: the photos' store does not answer`) || strings.Contains(string(res.Body), file) {
		t.Fatalf("/readyz with its media folder under a file: %d %s, want 200 with media degraded", res.StatusCode, res.Body)
	}
}
