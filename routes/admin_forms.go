package routes

import (
	"regexp"
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/petstore/petstore/models"
	"github.com/petstore/petstore/views"
)

// formRefusal reports whether err is about what was typed, so the form is shown again with it,
// rather than failing the request.
func formRefusal(err error) bool {
	switch models.ErrorCode(err) {
	case models.EValidation, models.EInvalid, models.EConflict:
		return true
	}
	return false
}

// fieldMessage is the message shown beside one field for a refused form.
func fieldMessage(err error, field string) string {
	if msg := models.FieldMessages(err)[field]; msg != "" {
		return msg
	}
	return models.ErrorMessage(err)
}

// statusOf is the HTTP status the API answers for err.
func statusOf(err error) int {
	if s, ok := statusOfCode[models.ErrorCode(err)]; ok {
		return s
	}
	return fiber.StatusInternalServerError
}

// notFoundSentence says what is missing in a sentence: "pet 42 not found" becomes "There is no
// pet 42.", "category not found" "There is no such category.".
func notFoundSentence(msg string) string {
	what, rest, ok := strings.Cut(msg, " not found")
	if !ok || what == "" {
		return views.Sentence("", msg)
	}
	if !strings.ContainsAny(what, "0123456789") {
		what = "such " + what
	}
	return "There is no " + what + rest + "."
}

// queryRule is a refusal of one of a page's query parameters: "status: must be one of ...".
var queryRule = regexp.MustCompile(`^([a-zA-Z]+): (.+)$`)

// addressRefusal is the title and the sentence of an error page for a page's address that the
// page refused (a link edited by hand, or one made for another order of the list).
func addressRefusal(msg string) (title, sentence string) {
	m := queryRule.FindStringSubmatch(msg)
	switch {
	case m == nil:
		return "That address does not work", views.Sentence("", msg)
	case m[1] == "cursor":
		return "That page of the list is gone", "The link was made for another view of the list, or changed by hand. Start again from the list's first page."
	}
	subject := "In the address, " + m[1]
	if s := views.Sentence(subject, m[2]); s != views.Sentence("", m[2]) {
		return "That address does not work", s
	}
	return "That address does not work", views.Sentence("", subject+": "+m[2])
}

// checkedIDs reads the ids of the rows ticked in a bulk form (each id once), at most most of
// them; what names the rows in the refusal.
func checkedIDs(c *fiber.Ctx, most int, what string) ([]int64, error) {
	var ids []int64
	for _, v := range c.Request().PostArgs().PeekMulti("id") {
		id, err := parseID("id", string(v))
		if err != nil {
			return nil, invalidParam(err)
		}
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	if len(ids) > most {
		return nil, models.Errorf(models.EInvalid, "id: at most %d %s at once, got %d", most, what, len(ids))
	}
	return ids, nil
}
