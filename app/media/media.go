// Package media keeps the catalogue's photos: immutable blobs under content-addressed keys
// ({sha256}.{jpg|png|webp}), in a folder on the service's machine (the default) or in an
// S3-compatible bucket that several instances share. The store knows nothing of pets: the
// database's photo rows name the keys, and a blob no row names is removed after a day (see
// Orphans in models).
package media

import (
	"context"
	"errors"
	"io"
	"regexp"
	"time"
)

// Store is where the blobs live. Keys are content-addressed, so a Put of a key that exists
// writes the same bytes again and changes nothing a reader could see.
type Store interface {
	// Put stores data under key; when it returns nil, the blob is durable and readable by every
	// instance that shares the store.
	Put(ctx context.Context, key, contentType string, data []byte) error
	// Stat returns the blob's size, or ErrNotFound.
	Stat(ctx context.Context, key string) (size int64, err error)
	// Get reads n bytes of the blob from offset off (n < 0: to its end), or ErrNotFound.
	Get(ctx context.Context, key string, off, n int64) (io.ReadCloser, error)
	// Delete removes the blob; deleting one that does not exist is not an error.
	Delete(ctx context.Context, key string) error
	// List calls fn with the key of every blob stored before the given time.
	List(ctx context.Context, before time.Time, fn func(key string) error) error
	// Ready checks that the store answers, for /readyz.
	Ready(ctx context.Context) error
}

// ErrNotFound is returned for a key the store does not hold.
var ErrNotFound = errors.New("media: no such blob")

// keyPattern is the form of every key: a SHA-256 in lowercase hex and the image's extension.
var keyPattern = regexp.MustCompile(`^[0-9a-f]{64}\.(jpg|png|webp)$`)

// ValidKey reports whether key has the form of a key this package stores; anything else (a path,
// a dot-dot) never reaches a store.
func ValidKey(key string) bool { return keyPattern.MatchString(key) }

// ContentType is the media type of a key's extension.
func ContentType(key string) string {
	switch {
	case len(key) > 4 && key[len(key)-4:] == ".png":
		return "image/png"
	case len(key) > 5 && key[len(key)-5:] == ".webp":
		return "image/webp"
	}
	return "image/jpeg"
}

// Unavailable is a store that fails every call with err: what a service whose store could not
// be opened uses, so its photos fail loudly instead of going elsewhere.
func Unavailable(err error) Store { return unavailable{err} }

type unavailable struct{ err error }

func (u unavailable) Put(context.Context, string, string, []byte) error { return u.err }
func (u unavailable) Stat(context.Context, string) (int64, error)       { return 0, u.err }
func (u unavailable) Get(context.Context, string, int64, int64) (io.ReadCloser, error) {
	return nil, u.err
}
func (u unavailable) Delete(context.Context, string) error                      { return u.err }
func (u unavailable) List(context.Context, time.Time, func(string) error) error { return u.err }
func (u unavailable) Ready(context.Context) error                               { return u.err }
