package models

import (
	"context"
	"regexp"
	"strconv"
	"strings"

	"gorm.io/gorm"
)

// A pick is what staff type in a field that names one object of a kind, with suggestions as
// they type: a category, a client. One rule reads it for every kind: a suggestion ("Acme Ltd
// (#7)", which a name shared by several objects needs), the exact name, the object's number
// ("7" or "#7"), or a name in any case that only one object has.

// MaxSuggestions is how many suggestions a field offers at once.
const MaxSuggestions = 20

// Named is an object by its number and its name.
type Named struct {
	ID   int64
	Name string
}

// Suggestion is how a field offers the object: its name, and its number after it where names
// may be shared.
func (n Named) Suggestion(numbered bool) string {
	if !numbered {
		return n.Name
	}
	return n.Name + " (#" + strconv.FormatInt(n.ID, 10) + ")"
}

var (
	numberedSuggestion = regexp.MustCompile(`^.* \(#([1-9][0-9]{0,17})\)$`)
	objectNumber       = regexp.MustCompile(`^#?([1-9][0-9]{0,17})$`)
)

// picker reads picks and suggests objects of one table with a name column.
type picker struct {
	db    *gorm.DB
	table string
	// noun names one object in messages ("category"); numbered says names may be shared, so a
	// suggestion carries the number.
	noun     string
	numbered bool
}

// pick resolves typed to an object's id; empty typed is 0. A pick that names no object, or
// several, is a refusal of field. A name written exactly beats a number ("2024" may be a
// category's name), and a number beats the same name in another case.
func (p picker) pick(ctx context.Context, field, typed string) (int64, error) {
	typed = strings.TrimSpace(typed)
	if typed == "" {
		return 0, nil
	}
	db := p.db.WithContext(ctx).Table(p.table)
	if m := numberedSuggestion.FindStringSubmatch(typed); m != nil {
		return p.byID(ctx, field, m[1])
	}
	var named []Named
	if err := db.Select("id", "name").Where("LOWER(name) = ?", strings.ToLower(typed)).Order("id").Limit(MaxSuggestions).Find(&named).Error; err != nil {
		return 0, storeError(err, "")
	}
	var exact []Named
	for _, n := range named {
		if n.Name == typed {
			exact = append(exact, n)
		}
	}
	if len(exact) > 0 {
		named = exact
	} else if m := objectNumber.FindStringSubmatch(typed); m != nil {
		return p.byID(ctx, field, m[1])
	}
	switch len(named) {
	case 0:
		return 0, FieldError(field, "there is no %s named %s; choose one of the suggestions", p.noun, strconv.Quote(typed))
	case 1:
		return named[0].ID, nil
	}
	numbers := make([]string, len(named))
	for i, n := range named {
		numbers[i] = "#" + strconv.FormatInt(n.ID, 10)
	}
	return 0, FieldError(field, "%d %s share the name %s (%s); choose one of the suggestions", len(named), p.noun+"s", strconv.Quote(typed), strings.Join(numbers, ", "))
}

func (p picker) byID(ctx context.Context, field, digits string) (int64, error) {
	id, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return 0, FieldError(field, "there is no %s #%s", p.noun, digits)
	}
	var n int64
	if err := p.db.WithContext(ctx).Table(p.table).Where("id = ?", id).Count(&n).Error; err != nil {
		return 0, storeError(err, "")
	}
	if n == 0 {
		return 0, FieldError(field, "there is no %s #%d", p.noun, id)
	}
	return id, nil
}

// suggest returns up to MaxSuggestions objects whose name contains q (any case), or whose number
// it is, by name.
func (p picker) suggest(ctx context.Context, q string) ([]string, error) {
	q = strings.TrimSpace(q)
	db := p.db.WithContext(ctx).Table(p.table).Select("id", "name")
	if q != "" {
		cond, args := "LOWER(name) LIKE ? ESCAPE '\\'", []any{nameLike(q)}
		if m := objectNumber.FindStringSubmatch(q); m != nil {
			cond, args = cond+" OR id = ?", append(args, m[1])
		}
		db = db.Where(cond, args...)
	}
	var named []Named
	if err := db.Order("name, id").Limit(MaxSuggestions).Find(&named).Error; err != nil {
		return nil, storeError(err, "")
	}
	out := make([]string, len(named))
	for i, n := range named {
		out[i] = n.Suggestion(p.numbered)
	}
	return out, nil
}

func (s *CategoryStore) picker() picker {
	return picker{db: s.db, table: "categories", noun: "category"}
}

// Pick resolves a category typed in field: its name, or its number; empty is 0.
func (s *CategoryStore) Pick(ctx context.Context, field, typed string) (int64, error) {
	return s.picker().pick(ctx, field, typed)
}

// Suggest returns the names of the categories whose name contains q.
func (s *CategoryStore) Suggest(ctx context.Context, q string) ([]string, error) {
	return s.picker().suggest(ctx, q)
}

func (s *ClientStore) picker() picker {
	return picker{db: s.db, table: "clients", noun: "client", numbered: true}
}

// Pick resolves a client typed in field: a suggestion ("Acme Ltd (#7)"), its name when only it
// has that name, or its number; empty is 0.
func (s *ClientStore) Pick(ctx context.Context, field, typed string) (int64, error) {
	return s.picker().pick(ctx, field, typed)
}

// Suggest returns the clients whose name contains q, or whose number q is, as "Name (#7)".
func (s *ClientStore) Suggest(ctx context.Context, q string) ([]string, error) {
	return s.picker().suggest(ctx, q)
}
