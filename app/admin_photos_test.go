package app_test

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"
	"testing"

	"github.com/petstore/petstore/app/apptest/testenv"
)

func TestStaffUploadSeveralPhotosMakeACoverAndDeleteOneOnThePetsPage(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := adminServer(t, store)
		p := createPet(t, s, map[string]any{"name": "Rex", "categoryId": 1})
		b := s.NewBrowser(t)
		b.Login(t, "sam", staffPassword)
		petPage := fmt.Sprintf("/admin/pets/%d", p.ID)
		page := b.Get(t, petPage)
		if page.TestID("pet-photos").Length() != 1 || page.TestID("photo-files").Length() != 1 {
			t.Fatalf("the pet's page has no photos section with an upload:\n%s", page.Body)
		}

		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		_ = mw.WriteField("_csrf", b.CSRF)
		for _, f := range []struct {
			name, ct string
			data     []byte
		}{
			{"rex.jpg", "image/jpeg", jpegBytes(t, 640, 480, 0)},
			{"rex.png", "image/png", pngBytes(t, 300, 400)},
		} {
			h := textproto.MIMEHeader{}
			h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="photos"; filename="%s"`, f.name))
			h.Set("Content-Type", f.ct)
			w, err := mw.CreatePart(h)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = w.Write(f.data)
		}
		_ = mw.Close()
		req := s.NewRequest(t, http.MethodPost, petPage+"/photos", &body)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		res := b.Do(t, req)
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("upload: %d, want 303:\n%s", res.StatusCode, res.Body)
		}
		page = b.Follow(t, res)
		if !strings.Contains(string(page.Body), "2 photos added.") {
			t.Fatal("the page does not say the 2 photos were added")
		}
		photos := petPhotos(t, s, p.ID)
		if len(photos) != 2 || photos[0].ContentType != "image/jpeg" || photos[1].ContentType != "image/png" {
			t.Fatalf("photos %+v, want the JPEG then the PNG", photos)
		}
		imgs := page.Doc.Find(`[data-testid="pet-photo"] img`)
		if imgs.Length() != 2 || page.Text("cover") != "Cover" {
			t.Fatalf("%d thumbnails on the page and cover %q, want 2 and the first the cover", imgs.Length(), page.Text("cover"))
		}
		src, _ := imgs.First().Attr("src")
		if r := fetch(t, s.URL+src); r.StatusCode != http.StatusOK {
			t.Fatalf("thumbnail %s: %d", src, r.StatusCode)
		}
		alt, _ := imgs.First().Attr("alt")
		if alt != "Rex, photo 1" {
			t.Fatalf("thumbnail alt %q", alt)
		}

		list := b.Get(t, "/admin/pets")
		if cover := list.TestID("pet-cover"); cover.Length() != 1 || cover.AttrOr("src", "") != src {
			t.Fatalf("the pets list shows %d covers (src %q), want the thumbnail %s", cover.Length(), cover.AttrOr("src", ""), src)
		}
		rows := readCSV(t, b, "/admin/pets?format=csv", "pets")
		if len(rows) != 2 || rows[0][6] != "cover" || rows[1][6] != photos[0].URL {
			t.Fatalf("the CSV: %q, want the cover's URL %s", rows, photos[0].URL)
		}

		res = b.Post(t, fmt.Sprintf("%s/photos/%d/cover", petPage, photos[1].ID), url.Values{})
		if got := petPhotos(t, s, p.ID); res.StatusCode != http.StatusSeeOther || got[0].ID != photos[1].ID {
			t.Fatalf("make cover: %d, photos %+v; want %d first", res.StatusCode, got, photos[1].ID)
		}
		res = b.Post(t, fmt.Sprintf("%s/photos/%d/delete", petPage, photos[1].ID), url.Values{})
		if got := petPhotos(t, s, p.ID); res.StatusCode != http.StatusSeeOther || len(got) != 1 || got[0].ID != photos[0].ID {
			t.Fatalf("delete: %d, photos %+v; want %d alone", res.StatusCode, got, photos[0].ID)
		}
	})
}
