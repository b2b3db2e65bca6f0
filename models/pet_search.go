package models

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"
)

// The word search (q) and the tag filter read indexes on both databases, never the whole table:
//
//   - PostgreSQL: a GIN index of the full-text vector of name, description and tags, in a text
//     search configuration of the schema's own (petstore_search: english stemming after
//     unaccent), and a GIN index of the tags as an array. Prefixes match with :*.
//   - SQLite: an FTS5 table over the same columns (porter stemming, diacritics removed), kept by
//     triggers; a tag is found in the pets the other conditions leave (the embedded store is the
//     small one).
const (
	searchConfig = "petstore_search"
	// searchVector is a stored generated column of the words a pet is searched in, indexed with
	// GIN: a page read in order tests the stored vector rather than recomputing it, and the
	// index gives the ids (see searchList).
	searchVector   = "search_vector"
	searchDocument = "to_tsvector('" + searchConfig + "'::regconfig, name || ' ' || description || ' ' || tags)"
	tagsArray      = "string_to_array(tags, ' ')"
	// extensionLockClass keys the advisory lock that keeps services migrating several schemas of
	// one database at once (the tests) from installing unaccent twice: an extension is the
	// database's, not a schema's.
	extensionLockClass = migrationLockClass + 1
)

// tagsCondition adds the condition "carries every one of tags".
func tagsCondition(db *gorm.DB, tags []string, where []string, args []any) ([]string, []any) {
	if len(tags) == 0 {
		return where, args
	}
	if db.Dialector.Name() == "postgres" {
		return append(where, tagsArray+" @> string_to_array(CAST(? AS text), ' ')"), append(args, strings.Join(tags, " "))
	}
	for _, t := range tags {
		where, args = append(where, "instr(' ' || tags || ' ', ?) > 0"), append(args, " "+t+" ")
	}
	return where, args
}

// searchCondition adds the condition "holds every word of s", each as a word, a prefix or a
// stem. On PostgreSQL, fromIndex says how (see searchList): false tests each pet's stored vector
// as the page is read, true gathers the matching ids from the index first.
func searchCondition(db *gorm.DB, s Search, fromIndex bool, where []string, args []any) ([]string, []any) {
	if len(s.Words) == 0 {
		return where, args
	}
	// The words hold only letters and digits: nothing in them is either syntax's.
	if db.Dialector.Name() == "postgres" {
		terms := make([]string, len(s.Words))
		for i, w := range s.Words {
			terms[i] = w + ":*"
		}
		match := searchVector + " @@ to_tsquery('" + searchConfig + "'::regconfig, ?)"
		if fromIndex {
			match = "id = ANY(ARRAY(SELECT id FROM pets WHERE " + match + "))"
		}
		return append(where, match), append(args, strings.Join(terms, " & "))
	}
	// FTS5 stems a query's word but not a prefix: "puppy" finds "puppies" as the word, "lab" finds
	// "labrador" as the prefix.
	terms := make([]string, len(s.Words))
	for i, w := range s.Words {
		terms[i] = `("` + w + `" OR "` + w + `"*)`
	}
	return append(where, "id IN (SELECT rowid FROM pets_search WHERE pets_search MATCH ?)"), append(args, strings.Join(terms, " AND "))
}

// On PostgreSQL a word search has two ways to a page, each fast where the other is slow. Walking
// the page's index and testing each pet's stored vector stops after a page of matches: at a
// million pets "calm" takes 0.4 ms and "calm lab" 5 ms, but a word nobody has walks the whole
// table (0.9 s). Gathering the matching ids from the GIN index first costs what the words match:
// 25 ms for a word nobody has, 0.9 s for "calm" (278,000 ids). The planner cannot tell the two
// cases apart from its statistics (a prefix nobody has is estimated as a rare word), so the walk
// goes first within searchWalkBudget of database time, and gives way to the index past it.
const searchWalkBudget = 50 * time.Millisecond

type searchWalkKey struct{}

// searchList is pets.list with the word search of words added to the conditions.
func searchList(ctx context.Context, db *gorm.DB, words Search, where []string, args []any, page Page) (Paged[Pet], error) {
	where, args = slices.Clip(where), slices.Clip(args) // each way appends its own condition
	if len(words.Words) == 0 || db.Dialector.Name() != "postgres" {
		where, args = searchCondition(db, words, false, where, args)
		return pets.list(ctx, db, where, args, page)
	}
	budget := searchWalkBudget
	if d, ok := ctx.Value(searchWalkKey{}).(time.Duration); ok {
		budget = d
	}
	var list Paged[Pet]
	if budget > 0 {
		walk, walkArgs := searchCondition(db, words, false, where, args)
		timedOut, err := withinBudget(ctx, db, budget, func(tx *gorm.DB) error {
			var err error
			list, err = pets.list(ctx, tx, walk, walkArgs, page)
			return err
		})
		if err != nil || !timedOut {
			return list, err
		}
	}
	where, args = searchCondition(db, words, true, where, args)
	return pets.list(ctx, db, where, args, page)
}

// searchIndexes makes the indexes of the word search and the tag filter (see above) when the
// schema lacks them, and notes them in m.
func searchIndexes(db *gorm.DB, m *Migration) error {
	if db.Dialector.Name() == "postgres" {
		return postgresSearchIndexes(db, m)
	}
	var n int64
	if err := db.Raw("SELECT COUNT(*) FROM sqlite_master WHERE name = 'pets_search'").Scan(&n).Error; err != nil || n > 0 {
		return err
	}
	cols := "name, description, tags"
	stmts := []string{
		"CREATE VIRTUAL TABLE pets_search USING fts5(" + cols + ", content='pets', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2')",
		"CREATE TRIGGER pets_search_insert AFTER INSERT ON pets BEGIN INSERT INTO pets_search(rowid, " + cols + ") VALUES (new.id, new.name, new.description, new.tags); END",
		"CREATE TRIGGER pets_search_delete AFTER DELETE ON pets BEGIN INSERT INTO pets_search(pets_search, rowid, " + cols + ") VALUES ('delete', old.id, old.name, old.description, old.tags); END",
		"CREATE TRIGGER pets_search_update AFTER UPDATE OF name, description, tags ON pets BEGIN " +
			"INSERT INTO pets_search(pets_search, rowid, " + cols + ") VALUES ('delete', old.id, old.name, old.description, old.tags); " +
			"INSERT INTO pets_search(rowid, " + cols + ") VALUES (new.id, new.name, new.description, new.tags); END",
		// The pets of an earlier release.
		"INSERT INTO pets_search(pets_search) VALUES ('rebuild')",
	}
	err := db.Transaction(func(tx *gorm.DB) error {
		for _, s := range stmts {
			if err := tx.Exec(s).Error; err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil && !m.Created {
		m.Indexes = append(m.Indexes, "pets_search")
	}
	return err
}

func postgresSearchIndexes(db *gorm.DB, m *Migration) error {
	var have int64
	err := db.Raw("SELECT COUNT(*) FROM pg_ts_config WHERE cfgname = ? AND cfgnamespace = current_schema()::regnamespace", searchConfig).Scan(&have).Error
	if err != nil {
		return err
	}
	if have == 0 {
		err := db.Transaction(func(tx *gorm.DB) error {
			if err := tx.Exec("SELECT pg_advisory_xact_lock(?, 0)", extensionLockClass).Error; err != nil {
				return err
			}
			// Where unaccent lives: an existing installation, else public when the service may
			// create there (the tests' schemas are dropped with what they hold; an extension other
			// schemas' configurations use must outlive them), else the service's own schema.
			var schema string
			if err := tx.Raw("SELECT extnamespace::regnamespace::text FROM pg_extension WHERE extname = 'unaccent'").Scan(&schema).Error; err != nil {
				return err
			}
			if schema == "" {
				if err := tx.Raw("SELECT CASE WHEN has_schema_privilege('public', 'CREATE') THEN 'public' ELSE quote_ident(current_schema()) END").Scan(&schema).Error; err != nil {
					return err
				}
				if err := tx.Exec("CREATE EXTENSION IF NOT EXISTS unaccent SCHEMA " + schema).Error; err != nil {
					return err
				}
			}
			if err := tx.Exec("CREATE TEXT SEARCH CONFIGURATION " + searchConfig + " (COPY = pg_catalog.english)").Error; err != nil {
				return err
			}
			return tx.Exec("ALTER TEXT SEARCH CONFIGURATION " + searchConfig + " ALTER MAPPING FOR hword, hword_part, word WITH " + schema + ".unaccent, english_stem").Error
		})
		if err != nil {
			return err
		}
	}
	if !db.Migrator().HasColumn(&Pet{}, searchVector) {
		// Rewrites the table: on 1,000,000 pets about a minute, once.
		if err := db.Exec("ALTER TABLE pets ADD COLUMN IF NOT EXISTS " + searchVector + " tsvector GENERATED ALWAYS AS (" + searchDocument + ") STORED").Error; err != nil {
			return err
		}
		if !m.Created {
			m.Columns = append(m.Columns, "pets."+searchVector)
		}
	}
	// Without fastupdate: its pending list of new entries, which every search reads through
	// until a vacuum merges it, held 20,000 entries after a seed and added 26 ms to every search
	// (a million pets); a catalogue is read far more often than written.
	for _, idx := range []struct{ name, def string }{
		{"idx_pets_search_vector", "pets USING gin (" + searchVector + ") WITH (fastupdate = off)"},
		{"idx_pets_tags", "pets USING gin (" + tagsArray + ") WITH (fastupdate = off)"},
	} {
		if db.Migrator().HasIndex("pets", idx.name) {
			continue
		}
		if err := db.Exec("CREATE INDEX IF NOT EXISTS " + idx.name + " ON " + idx.def).Error; err != nil {
			return err
		}
		if !m.Created {
			m.Indexes = append(m.Indexes, idx.name)
		}
	}
	return nil
}

// MaxTagCounts bounds the list of tags in use.
const MaxTagCounts = 1000

// TagCount is a tag and how many live pets carry it.
type TagCount struct {
	Name  string
	Count int64
}

// Tags lists the tags the live pets carry, most used first (then by name), at most
// MaxTagCounts, and how long ago they were counted (up to KeepCounts' age; the list is shared:
// read it only); it may read a replica (MayReadReplica).
func (s *PetStore) Tags(ctx context.Context) ([]TagCount, time.Duration, error) {
	return s.tags.get(ctx, s.countsMaxAge, s.now, func(ctx context.Context) ([]TagCount, error) { return s.tagCounts(ctx, "") })
}

// tagSuggestionSample is how many of the newest pets TagSuggestions reads: a thousand take about
// 0.3 ms at any size, where ten thousand took 3 ms of every pets page and form.
const tagSuggestionSample = 1_000

// TagSuggestions are the tags the admin's tag fields suggest: those of the newest
// tagSuggestionSample pets by id, most used first, kept as the counts are (KeepCounts): every
// pets page and pet form shows them. A window read through the primary key costs the same at
// any size; Tags, exact, reads every pet (200 to 300 ms a page at a million pets).
func (s *PetStore) TagSuggestions(ctx context.Context) ([]string, error) {
	names, _, err := s.suggestions.get(ctx, s.countsMaxAge, s.now, s.tagSuggestions)
	return names, err
}

func (s *PetStore) tagSuggestions(ctx context.Context) ([]string, error) {
	// The bound is read first: given as a subquery, PostgreSQL plans for a third of the table and
	// starts parallel workers (20 to 130 ms at a million pets), where a number plans a range.
	var newest sql.NullInt64
	if err := laggingRead(ctx, s.db).WithContext(ctx).Raw("SELECT MAX(id) FROM pets").Row().Scan(&newest); err != nil {
		return nil, storeError(err, "")
	}
	counts, err := s.tagCounts(ctx, "pets.id > ?", newest.Int64-tagSuggestionSample)
	names := make([]string, len(counts))
	for i, t := range counts {
		names[i] = t.Name
	}
	return names, err
}

// tagCounts counts the tags of the live pets, under one more condition when cond is not empty.
func (s *PetStore) tagCounts(ctx context.Context, cond string, args ...any) ([]TagCount, error) {
	db := laggingRead(ctx, s.db).WithContext(ctx)
	// SQLite has no split: the tags, which hold neither quotes nor backslashes, are made a JSON
	// array.
	each := "json_each('[\"' || replace(pets.tags, ' ', '\",\"') || '\"]') AS t"
	name := "t.value"
	if db.Dialector.Name() == "postgres" {
		each, name = "unnest("+tagsArray+") AS t(name)", "t.name"
	}
	var out []TagCount
	where := "pets.deleted_at IS NULL AND pets.tags <> ''"
	if cond != "" {
		where += " AND " + cond
	}
	err := db.Raw("SELECT "+name+" AS name, COUNT(*) AS count FROM pets CROSS JOIN "+each+
		" WHERE "+where+" GROUP BY "+name+" ORDER BY count DESC, name LIMIT ?", append(args, MaxTagCounts)...).Scan(&out).Error
	return out, storeError(err, "")
}
