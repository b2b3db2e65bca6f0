package app_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/petstore/petstore/app/apptest/testenv"
)

func TestAdminPetDescriptionTagsTagFilterAndWordSearch(t *testing.T) {
	t.Parallel()
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := adminServer(t, store)
		b := s.NewBrowser(t)
		b.Login(t, "sam", staffPassword)
		createTagged(t, s, map[string]any{"name": "Old lab", "tags": []string{"senior"}})

		// The form suggests the tags in use, and keeps what was typed when it refuses it.
		form := b.Get(t, "/admin/pets/new")
		var suggested []string
		form.Doc.Find("#tag-names option").Each(func(_ int, o *goquery.Selection) { suggested = append(suggested, o.AttrOr("value", "")) })
		if !slices.Equal(suggested, []string{"senior"}) || form.Doc.Find("#tags").AttrOr("list", "") != "tag-names" {
			t.Fatalf("the tags field suggests %v, want the tag in use", suggested)
		}
		p := b.Post(t, "/admin/pets", url.Values{"name": {"Rex"}, "categoryId": {"1"}, "status": {"available"},
			"description": {"Calm."}, "tags": {"calm, café"}})
		if wantStatus(t, p, http.StatusBadRequest); !strings.Contains(p.Text("error-tags"), "letters") ||
			p.Doc.Find("#tags").AttrOr("value", "") != "calm, café" || strings.TrimSpace(p.Doc.Find("#description").Text()) != "Calm." {
			t.Fatalf("an accented tag: error %q, fields %q %q", p.Text("error-tags"), p.Doc.Find("#tags").AttrOr("value", ""), p.Doc.Find("#description").Text())
		}

		p = b.Post(t, "/admin/pets", url.Values{"name": {"Rex"}, "categoryId": {"1"}, "status": {"available"},
			"description": {"A calm Labrador puppy.\r\nLoves the Café."}, "tags": {"Puppy, calm  house-trained"}})
		wantStatus(t, p, http.StatusSeeOther)
		shown := b.Follow(t, p)
		if got := shown.Text("pet-description"); got != "A calm Labrador puppy.\nLoves the Café." {
			t.Fatalf("the pet's page shows the description %q", got)
		}
		var tags []string
		shown.TestID("pet-tags").Find("a").Each(func(_ int, a *goquery.Selection) { tags = append(tags, a.Text()+" "+a.AttrOr("href", "")) })
		if !slices.Equal(tags, []string{"calm /admin/pets?tag=calm", "house-trained /admin/pets?tag=house-trained", "puppy /admin/pets?tag=puppy"}) {
			t.Fatalf("the pet's page shows the tags %q, want each sorted and linked to the list of its pets", tags)
		}
		id := strings.TrimPrefix(p.Location(), "/admin/pets/")

		edit := b.Get(t, "/admin/pets/"+id+"/edit")
		if v := edit.Doc.Find("#tags").AttrOr("value", ""); v != "calm, house-trained, puppy" {
			t.Fatalf("the edit form's tags %q", v)
		}
		p = b.Post(t, "/admin/pets/"+id, url.Values{"name": {"Rex"}, "categoryId": {"1"}, "description": {""}, "tags": {"calm senior"}})
		wantStatus(t, p, http.StatusSeeOther)
		var api []taggedPet
		s.Get(t, "/v1/pets?id="+id).JSON(t, &api)
		if len(api) != 1 || *api[0].Description != "" || !slices.Equal(*api[0].Tags, []string{"calm", "senior"}) {
			t.Fatalf("after the edit the API answers %+v, want no description and tags calm, senior", api)
		}

		for query, want := range map[string]string{
			"tag=senior":         "Old lab,Rex",
			"tag=senior,calm":    "Rex",
			"q=lab":              "Old lab",
			"q=rex&tag=senior":   "Rex",
			"q=" + id:            "Rex",
			"q=old+labs&tag=":    "Old lab",
			"tag=nothing-at-all": "",
		} {
			if got := strings.Join(petNames(b.Get(t, "/admin/pets?"+query)), ","); got != want {
				t.Errorf("/admin/pets?%s lists %q, want %q", query, got, want)
			}
		}
		rows := readCSV(t, b, "/admin/pets?format=csv&tag=senior", "pets")
		if len(rows) != 3 || rows[2][1] != "Rex" || rows[2][4] != "" || rows[2][5] != "calm senior" {
			t.Fatalf("the CSV of tag senior: %q", rows)
		}
	})
}
