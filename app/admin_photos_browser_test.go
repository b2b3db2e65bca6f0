package app_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/petstore/petstore/app/apptest/testenv"
)

// Staff choose two photos at once on a pet's page and upload them, make the second the cover,
// and see it in the pets list; each page passes axe-core in both colour schemes, on a phone and a
// desktop (shotEveryView).
func TestStaffUploadPhotosAndChooseTheCoverInABrowser(t *testing.T) {
	t.Parallel()
	s := adminServer(t, testenv.SQLite)
	rex := createPet(t, s, map[string]any{"name": "Rex", "categoryId": 1})
	dir := t.TempDir()
	files := []string{filepath.Join(dir, "rex.jpg"), filepath.Join(dir, "rex.png")}
	if err := os.WriteFile(files[0], jpegBytes(t, 900, 600, 0), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(files[1], pngBytes(t, 400, 600), 0o600); err != nil {
		t.Fatal(err)
	}

	c := newChrome(t, s.URL)
	c.login("sam", staffPassword)
	page := "/admin/pets/" + strconv.FormatInt(rex.ID, 10)
	c.open(page)
	c.shotEveryView("pet-no-photos")
	c.do(chromedp.SetUploadFiles(chromedp.CSS(`[data-testid="photo-files"]`), files))
	if status := c.submit(`[data-testid="upload-photos"]`); status != 200 {
		t.Fatalf("the upload led to a page of status %d", status)
	}
	if got := c.count(`[data-testid="pet-photo"] img`); got != 2 {
		t.Fatalf("the pet's page shows %d photos after the upload, want 2", got)
	}
	c.shotEveryView("pet-photos")
	c.submit(`[data-testid="make-cover"]`)
	if photos := petPhotos(t, s, rex.ID); len(photos) != 2 || photos[0].ContentType != "image/png" {
		t.Fatalf("photos %+v, want the PNG the cover", photos)
	}
	c.open("/admin/pets")
	if got := c.count(`[data-testid="pet-cover"]`); got != 1 {
		t.Fatalf("the pets list shows %d covers, want 1", got)
	}
	c.shotEveryView("pets-with-cover")
}
