package models

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/schema"
)

// MaxPhotos is how many photos a pet may have.
const MaxPhotos = 10

// Photo is one photo of a pet, as stored: the keys of its image and thumbnail in the media
// store (content-addressed, so two photos may share a blob), and its place among the pet's
// photos (0 is the cover). The row is written after both blobs are stored, so a row never names
// a blob that is missing; a blob whose row never committed is an orphan, removed after a day.
type Photo struct {
	ID          int64  `gorm:"primaryKey"`
	PetID       int64  `gorm:"not null;index:idx_photos_pet_position,priority:1"`
	Pet         *Pet   `gorm:"constraint:OnUpdate:CASCADE,OnDelete:CASCADE"`
	Position    int    `gorm:"not null;index:idx_photos_pet_position,priority:2"`
	Key         string `gorm:"size:80;not null;index"`
	ThumbKey    string `gorm:"size:80;not null;index"`
	ContentType string `gorm:"size:32;not null"`
	Width       int    `gorm:"not null"`
	Height      int    `gorm:"not null"`
	CreatedAt   time.Time
	// base starts the photo's URLs: the media address of the request that read it (MediaBase).
	base string `gorm:"-"`
}

// PhotoResponse is a photo as the API returns it.
type PhotoResponse struct {
	// Unique identifier assigned by the service.
	ID int64 `json:"id" example:"7" format:"int64" validate:"required"`
	// Absolute URL of the image (at most 2,048 pixels on its long side, without metadata). Content-addressed: the image at this address never changes.
	URL string `json:"url" example:"https://api.petstore.example/media/9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08.jpg" format:"uri" maxLength:"2200" validate:"required"`
	// Absolute URL of the thumbnail, at most 400 pixels on its long side.
	ThumbnailURL string `json:"thumbnailUrl" example:"https://api.petstore.example/media/60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752.jpg" format:"uri" maxLength:"2200" validate:"required"`
	// Width of the image in pixels.
	Width int `json:"width" example:"2048" format:"int32" validate:"required"`
	// Height of the image in pixels.
	Height int `json:"height" example:"1536" format:"int32" validate:"required"`
	// Media type of the image (and its thumbnail): JPEG and PNG uploads keep their type; WebP becomes JPEG, or PNG when it has transparency.
	ContentType string `json:"contentType" enums:"image/jpeg,image/png,image/webp" example:"image/jpeg" validate:"required"`
	// When the photo was added.
	CreatedAt time.Time `json:"createdAt" format:"date-time" example:"2026-11-21T10:00:00Z" validate:"required"`
} //	@name	Photo

// Response is the photo as the API returns it.
func (p *Photo) Response() PhotoResponse {
	base := p.base
	if base == "" { // read outside a request (the command line) with no address configured
		base = "/media/"
	}
	return PhotoResponse{ID: p.ID, URL: base + p.Key, ThumbnailURL: base + p.ThumbKey,
		Width: p.Width, Height: p.Height, ContentType: p.ContentType, CreatedAt: p.CreatedAt.UTC()}
}

func photosResponse(photos []Photo) []PhotoResponse {
	out := make([]PhotoResponse, len(photos))
	for i := range photos {
		out[i] = photos[i].Response()
	}
	return out
}

type mediaBaseKey struct{}

// WithMediaBase makes the photos read under ctx answer URLs that start with base (such as
// https://api.example.com/media/), which the routes set for each request: PETSTORE_MEDIA_URL, or
// the service's public address.
func WithMediaBase(ctx context.Context, base string) context.Context {
	return context.WithValue(ctx, mediaBaseKey{}, base)
}

// MediaBase is the base ctx carries; empty without one.
func MediaBase(ctx context.Context) string {
	b, _ := ctx.Value(mediaBaseKey{}).(string)
	return b
}

// Photos are a pet's photos in display order. A read of pets that names photosColumn fills them
// in the same statement: a page of pets with its photos is one query, on both stores.
type Photos []Photo

// photosColumn is the select-list expression that reads each pet's photos with it, in display
// order: per photo its fields joined by commas (photoFields), photos joined by semicolons, NULL
// when it has none. No field holds either character (keys are hex digests with an extension,
// content types are image/...), and the text costs a split to read where JSON cost a decoder
// (a tenth of a page's CPU). The API's shape is PhotoResponse's alone.
func photosColumn(db *gorm.DB) string {
	created := "(extract(epoch FROM ph.created_at) * 1000000)::bigint" // microseconds: exact
	if db.Dialector.Name() != "postgres" {
		created = "ph.created_at" // the driver's text (sqliteTime)
	}
	return "(SELECT " + photosAgg(db) + "(concat_ws(',', ph.id, ph.pet_id, ph.position, ph.width, ph.height, " + created +
		", ph.content_type, ph.key, ph.thumb_key), ';' ORDER BY ph.position, ph.id) FROM photos ph WHERE ph.pet_id = pets.id) AS photos"
}

func photosAgg(db *gorm.DB) string {
	if db.Dialector.Name() == "postgres" {
		return "string_agg"
	}
	return "group_concat"
}

// sqliteTime is how the embedded SQLite's driver writes a time.
const sqliteTime = "2006-01-02 15:04:05.999999999-07:00"

// Scan reads photosColumn.
func (ps *Photos) Scan(v any) error {
	var s string
	switch v := v.(type) {
	case nil:
		*ps = nil
		return nil
	case string:
		s = v
	case []byte:
		s = string(v)
	default:
		return fmt.Errorf("photos: cannot read %T", v)
	}
	out := make(Photos, 0, strings.Count(s, ";")+1)
	for s != "" {
		var row string
		row, s, _ = strings.Cut(s, ";")
		ph, err := photoFields(row)
		if err != nil {
			return fmt.Errorf("photos: %w in %q", err, row)
		}
		out = append(out, ph)
	}
	*ps = out
	return nil
}

// photoFields reads one photo of photosColumn.
func photoFields(row string) (Photo, error) {
	var ph Photo
	var f [9]string
	for i := range f[:8] {
		var ok bool
		if f[i], row, ok = strings.Cut(row, ","); !ok {
			return ph, errors.New("too few fields")
		}
	}
	f[8] = row
	var n [5]int64
	for i := range n {
		var err error
		if n[i], err = strconv.ParseInt(f[i], 10, 64); err != nil {
			return ph, err
		}
	}
	ph = Photo{ID: n[0], PetID: n[1], Position: int(n[2]), Width: int(n[3]), Height: int(n[4]),
		ContentType: f[6], Key: f[7], ThumbKey: f[8]}
	if us, err := strconv.ParseInt(f[5], 10, 64); err == nil {
		ph.CreatedAt = time.UnixMicro(us)
		return ph, nil
	}
	var err error
	ph.CreatedAt, err = time.Parse(sqliteTime, f[5])
	return ph, err
}

// withPhotos makes q, a read of pets, read their photos too; setMediaBase then gives the photos
// the media address their URLs start with.
func withPhotos(q *gorm.DB) *gorm.DB {
	// A clause rather than Select: GORM would look the whole list up as a field's name each time.
	return q.Clauses(clause.Select{Expression: clause.Expr{SQL: petColumns(q) + ", " + photosColumn(q)}})
}

var petColumnList struct {
	once sync.Once
	cols string
}

// petColumns names the columns of the pets table a Pet holds, from its GORM schema. `pets.*`
// would also carry the word search's tsvector on PostgreSQL, which no Pet holds: about a fifth of
// a page's time in the database (make bench).
func petColumns(db *gorm.DB) string {
	petColumnList.once.Do(func() {
		s, err := schema.Parse(&Pet{}, &schemas, db.NamingStrategy)
		if err != nil {
			panic("models: the Pet schema: " + err.Error())
		}
		cols := make([]string, 0, len(s.Fields))
		for _, f := range s.Fields {
			// Photos are read with the pet, not a column of its table (withPhotos).
			if f.DBName != "" && !f.IgnoreMigration {
				cols = append(cols, s.Table+"."+f.DBName)
			}
		}
		petColumnList.cols = strings.Join(cols, ", ")
	})
	return petColumnList.cols
}

// setMediaBase gives the photos of pets the media address of ctx (see MediaBase).
func setMediaBase(ctx context.Context, pets ...*Pet) {
	base := MediaBase(ctx)
	for _, p := range pets {
		for i := range p.Photos {
			p.Photos[i].base = base
		}
	}
}

// NewPhoto is an uploaded photo, stored already in the media store.
type NewPhoto struct {
	Key, ThumbKey, ContentType string
	Width, Height              int
}

// PhotoStore adds, moves and removes pets' photos; each change is the pet's update, with its
// audit entry and pet.updated event, in one transaction that locks the pet.
type PhotoStore struct{ db *gorm.DB }

// NewPhotoStore returns a store on db.
func NewPhotoStore(db *gorm.DB) *PhotoStore { return &PhotoStore{db: db} }

func photoNotFound(petID, id int64) string {
	return "pet " + strconv.FormatInt(petID, 10) + " has no photo " + strconv.FormatInt(id, 10)
}

// Count returns how many photos a live pet has, or not_found; the routes ask before the costly
// decoding, and Add checks again in its transaction.
func (s *PhotoStore) Count(ctx context.Context, petID int64) (int, error) {
	var p Pet
	db := s.db.WithContext(ctx)
	if err := db.Select("id").Take(&p, petID).Error; err != nil {
		return 0, storeError(err, petNotFound(petID))
	}
	var n int64
	err := db.Model(&Photo{}).Where("pet_id = ?", petID).Count(&n).Error
	return int(n), storeError(err, "")
}

func tooManyPhotos(petID int64) error {
	return &Error{Code: EConflict, Field: "petId", Message: "pet " + strconv.FormatInt(petID, 10) +
		" has " + strconv.Itoa(MaxPhotos) + " photos already, the most it may have; delete one first"}
}

// Add appends a photo to a live pet, last; a pet with MaxPhotos photos refuses it (conflict).
// then runs in the same transaction (an Idempotency-Key's kept answer).
func (s *PhotoStore) Add(ctx context.Context, petID int64, n NewPhoto, actor string, then Then[Photo]) (*Photo, error) {
	var out *Photo
	err := s.change(ctx, petID, actor, func(tx *gorm.DB, p *Pet) error {
		if len(p.Photos) >= MaxPhotos {
			return tooManyPhotos(petID)
		}
		ph := Photo{PetID: petID, Position: len(p.Photos), Key: n.Key, ThumbKey: n.ThumbKey,
			ContentType: n.ContentType, Width: n.Width, Height: n.Height, CreatedAt: tx.NowFunc(),
			base: MediaBase(tx.Statement.Context)}
		if err := tx.Omit(clause.Associations).Create(&ph).Error; err != nil {
			return err
		}
		p.Photos = append(p.Photos, ph)
		out = &p.Photos[len(p.Photos)-1]
		return then.run(tx, out)
	})
	return out, err
}

// Get returns one photo of a live pet.
func (s *PhotoStore) Get(ctx context.Context, petID, id int64) (*Photo, error) {
	var p Pet
	db := laggingRead(ctx, s.db).WithContext(ctx)
	if err := db.Select("id").Take(&p, petID).Error; err != nil {
		return nil, storeError(err, petNotFound(petID))
	}
	var ph Photo
	if err := db.Where("pet_id = ?", petID).Take(&ph, id).Error; err != nil {
		return nil, storeError(err, photoNotFound(petID, id))
	}
	ph.base = MediaBase(ctx)
	return &ph, nil
}

// Delete removes a photo of a live pet; those after it move up. Its blobs stay until the
// orphan job finds no row naming them.
func (s *PhotoStore) Delete(ctx context.Context, petID, id int64, actor string) error {
	return s.change(ctx, petID, actor, func(tx *gorm.DB, p *Pet) error {
		i := photoIndex(p.Photos, id)
		if i < 0 {
			return &Error{Code: ENotFound, Message: photoNotFound(petID, id)}
		}
		if err := tx.Delete(&Photo{}, id).Error; err != nil {
			return err
		}
		p.Photos = append(p.Photos[:i:i], p.Photos[i+1:]...)
		return renumber(tx, p.Photos)
	})
}

// Move puts a photo of a live pet at position (0 is the cover, past the last is last); the
// others move up or down.
func (s *PhotoStore) Move(ctx context.Context, petID, id int64, position int, actor string) (*Photo, error) {
	if position < 0 {
		return nil, FieldError("position", "must be 0 or more, got %d", position)
	}
	var out *Photo
	err := s.change(ctx, petID, actor, func(tx *gorm.DB, p *Pet) error {
		i := photoIndex(p.Photos, id)
		if i < 0 {
			return &Error{Code: ENotFound, Message: photoNotFound(petID, id)}
		}
		to := min(position, len(p.Photos)-1)
		ph := p.Photos[i]
		rest := append(p.Photos[:i:i], p.Photos[i+1:]...)
		p.Photos = append(rest[:to:to], append([]Photo{ph}, rest[to:]...)...)
		out = &p.Photos[to]
		return renumber(tx, p.Photos)
	})
	return out, err
}

func photoIndex(photos []Photo, id int64) int {
	for i := range photos {
		if photos[i].ID == id {
			return i
		}
	}
	return -1
}

// renumber writes the positions of photos that moved.
func renumber(tx *gorm.DB, photos []Photo) error {
	for i := range photos {
		if photos[i].Position == i {
			continue
		}
		photos[i].Position = i
		if err := tx.Model(&Photo{}).Where("id = ?", photos[i].ID).Update("position", i).Error; err != nil {
			return err
		}
	}
	return nil
}

// change locks a live pet with its photos, lets edit change them, and records the pet's update
// (its updatedAt, the audit entry and pet.updated with previous.photos) when the photos changed.
func (s *PhotoStore) change(ctx context.Context, petID int64, actor string, edit func(tx *gorm.DB, p *Pet) error) error {
	err := s.db.WithContext(WithActor(ctx, actor)).Transaction(func(tx *gorm.DB) error {
		p, err := lockPet(tx, petID)
		if err != nil {
			return err
		}
		was := *p
		was.Photos = append([]Photo(nil), p.Photos...)
		if err := edit(tx, p); err != nil {
			return err
		}
		before, after := photoIDs(was.Photos), photoIDs(p.Photos)
		if before == after {
			return nil
		}
		now := tx.NowFunc()
		p.UpdatedAt = now
		if err := tx.Model(&Pet{ID: petID}).Update("updated_at", now).Error; err != nil {
			return err
		}
		if err := recordChange(tx, Change{Object: ObjectPet, ID: p.ID, Name: p.Name, Action: AuditUpdate,
			Before: Fields{"photos": before}, After: Fields{"photos": after}}); err != nil {
			return err
		}
		return publishPetEvent(tx, EventPetUpdated, &was, p)
	})
	return storeError(err, "")
}

// photoIDs lists the photos' ids in order, as the audit log shows them.
func photoIDs(photos []Photo) string {
	ids := make([]string, len(photos))
	for i := range photos {
		ids[i] = strconv.FormatInt(photos[i].ID, 10)
	}
	return strings.Join(ids, ",")
}

// PhotoKeys reports which of keys some photo row names (deleted pets' photos included), for the
// orphan job.
func (s *PhotoStore) PhotoKeys(ctx context.Context, keys []string) (map[string]bool, error) {
	named := make(map[string]bool, len(keys))
	if len(keys) == 0 {
		return named, nil
	}
	var rows []struct{ Key, ThumbKey string }
	err := s.db.WithContext(ctx).Model(&Photo{}).Select("key, thumb_key").
		Where("key IN ? OR thumb_key IN ?", keys, keys).Scan(&rows).Error
	if err != nil {
		return nil, storeError(err, "")
	}
	for _, r := range rows {
		named[r.Key], named[r.ThumbKey] = true, true
	}
	return named, nil
}
