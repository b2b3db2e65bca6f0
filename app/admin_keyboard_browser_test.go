package app_test

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
)

func TestStaffReachThePetSearchWithSlashOrOneTabAndJumpToAPageInABrowser(t *testing.T) {
	t.Parallel()
	s := adminServer(t, testenv.SQLite)
	createPets(t, s, 80, "Pet", models.PetAvailable)
	c := newChrome(t, s.URL)
	c.login("sam", staffPassword)
	c.open("/admin/pets")
	// "/" away from any field focuses the search.
	c.do(chromedp.KeyEvent("/"))
	if id := eval[string](c, `document.activeElement.id`); id != "q" {
		t.Fatalf(`after "/", the focus is on %q, want the search`, id)
	}
	// Typed in a field, "/" is a character. (The devtools protocol sends the key's character
	// separately from its keydown, so the first "/" landed in the field too: cleared first.)
	_ = eval[string](c, `document.getElementById("q").value = ""`)
	c.do(chromedp.KeyEvent("Rex/"))
	if v := eval[string](c, `document.getElementById("q").value`); v != "Rex/" {
		t.Fatalf("typing in the search gives %q", v)
	}
	// The first Tab reaches the skip link that leads to the search.
	c.open("/admin/pets")
	c.do(chromedp.KeyEvent(kb.Tab))
	if got := eval[string](c, `document.activeElement.textContent`); got != "Skip to search" {
		t.Fatalf("the first Tab reaches %q", got)
	}
	if href := eval[string](c, `document.activeElement.getAttribute("href")`); href != "#q" {
		t.Fatalf("the skip link leads to %q, want #q", href)
	}
	// The jump form goes to page 3 of 4.
	c.fill("#jump-page", "3")
	c.submit(`[data-testid="page-jump-go"]`)
	if got := c.text(`[data-testid="pager-summary"]`); got != "51–75 of 80 pets" {
		t.Fatalf("page 3 says %q", got)
	}
	if got := eval[string](c, `document.querySelector(".me-link .me-label").textContent`); got != "Account" {
		t.Fatalf("the account link is labelled %q", got)
	}
	c.shot("60-pets-page-3")
}
