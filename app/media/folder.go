package media

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Folder keeps blobs as files in one directory, created when the first blob is stored.
type Folder struct{ dir string }

// NewFolder returns a store in dir.
func NewFolder(dir string) *Folder { return &Folder{dir: dir} }

// Put writes the blob to a temporary file in the folder, syncs it and renames it into place, so
// a reader never sees half a blob and a crash leaves none under its key.
func (f *Folder) Put(_ context.Context, key, _ string, data []byte) error {
	if !ValidKey(key) {
		return fmt.Errorf("media: invalid key %q", key)
	}
	if err := os.MkdirAll(f.dir, 0o750); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(f.dir, ".upload-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // gone already once renamed
	if _, err := tmp.Write(data); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(f.dir, key))
}

func (f *Folder) path(key string) (string, error) {
	if !ValidKey(key) {
		return "", ErrNotFound
	}
	return filepath.Join(f.dir, key), nil
}

// Stat returns the blob's size.
func (f *Folder) Stat(_ context.Context, key string) (int64, error) {
	p, err := f.path(key)
	if err != nil {
		return 0, err
	}
	fi, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, ErrNotFound
	}
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// Get opens the blob at off, limited to n bytes when n >= 0.
func (f *Folder) Get(_ context.Context, key string, off, n int64) (io.ReadCloser, error) {
	p, err := f.path(key)
	if err != nil {
		return nil, err
	}
	file, err := os.Open(p) // #nosec G304 -- p is the folder and a key ValidKey accepted
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	if _, err := file.Seek(off, io.SeekStart); err != nil {
		_ = file.Close()
		return nil, err
	}
	if n < 0 {
		return file, nil
	}
	return struct {
		io.Reader
		io.Closer
	}{io.LimitReader(file, n), file}, nil
}

// Delete removes the blob's file.
func (f *Folder) Delete(_ context.Context, key string) error {
	p, err := f.path(key)
	if err != nil {
		return nil
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// List reads the folder; temporary files and anything else without a key's name are skipped.
func (f *Folder) List(ctx context.Context, before time.Time, fn func(string) error) error {
	entries, err := os.ReadDir(f.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !ValidKey(e.Name()) {
			continue
		}
		info, err := e.Info()
		if err != nil || !info.ModTime().Before(before) {
			continue
		}
		if err := fn(e.Name()); err != nil {
			return err
		}
	}
	return nil
}

// Ready checks that the folder, once it exists, can be read.
func (f *Folder) Ready(context.Context) error {
	if _, err := os.Stat(f.dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
