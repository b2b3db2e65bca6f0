package app_test

import (
	"strconv"
	"testing"

	"github.com/petstore/petstore/app/apptest/testenv"
)

// Staff give a pet a description and tags in its form (a tag in use offered by the field's
// suggestions), find it by tag and by words in the pets list, on both stores' search; each page
// passes axe-core in both colour schemes, on a phone and a desktop.
func TestStaffTagAndSearchPetsInABrowser(t *testing.T) {
	t.Parallel()
	s := adminServer(t, testenv.SQLite)
	createTagged(t, s, map[string]any{"name": "Old lab", "tags": []string{"senior"}, "description": "Sleeps at the Café."})
	rex := createTagged(t, s, map[string]any{"name": "Rex"})
	createTagged(t, s, map[string]any{"name": "Zorro", "description": "Not a match."})

	c := newChrome(t, s.URL)
	c.login("ada", adminPassword)

	c.open("/admin/pets/" + strconv.FormatInt(rex.ID, 10) + "/edit")
	if got := c.count(`#tag-names option[value="senior"]`); got != 1 {
		t.Fatalf("the tags field suggests %d options of senior, want the tag in use", got)
	}
	c.fill("#description", "A calm Labrador puppy.\nLoves walks.")
	c.fill("#tags", "calm, Senior")
	c.shotEveryView("pet-form-tags")
	c.submit(`[data-testid="save-pet"]`)

	c.open("/admin/pets/" + strconv.FormatInt(rex.ID, 10))
	if got := c.text(`[data-testid="pet-description"]`); got != "A calm Labrador puppy.\nLoves walks." {
		t.Fatalf("the pet's page shows the description %q", got)
	}
	if got := c.texts(`[data-testid="pet-tags"] a`); got != "calm,senior" {
		t.Fatalf("the pet's page shows the tags %q", got)
	}
	c.shotEveryView("pet-page-tags")

	// A tag on the pet's page lists the pets carrying it.
	c.submit(`[data-testid="pet-tags"] a[href="/admin/pets?tag=senior"]`)
	if got := c.texts(`[data-testid="pet-name"]`); got != "Old lab,Rex" {
		t.Fatalf("the pets tagged senior: %q", got)
	}

	// The search box finds words, their beginnings and other forms, without accents.
	c.open("/admin/pets")
	c.fill("#q", "lab puppies")
	c.submit(`[data-testid="pet-filters"] button[type="submit"]`)
	if got := c.texts(`[data-testid="pet-name"]`); got != "Rex" {
		t.Fatalf("the search lab puppies lists %q", got)
	}
	c.open("/admin/pets?q=cafe")
	if got := c.texts(`[data-testid="pet-name"]`); got != "Old lab" {
		t.Fatalf("the search cafe lists %q", got)
	}
	c.open("/admin/pets")
	c.fill("#f-tag", "calm")
	c.submit(`[data-testid="pet-filters"] button[type="submit"]`)
	if got := c.texts(`[data-testid="pet-name"]`); got != "Rex" {
		t.Fatalf("the tag filter calm lists %q", got)
	}
	c.shotEveryView("pets-tag-filter")
}

// texts is the text of every element sel finds, trimmed, joined by commas.
func (c *chrome) texts(sel string) string {
	c.t.Helper()
	return eval[string](c, "[...document.querySelectorAll("+jsString(sel)+")].map(e => e.textContent.trim()).join(',')")
}
