// Package static holds the admin pages' CSS, script and images, embedded in the binary. Each file
// is served under a name that carries a hash of its content, so browsers may cache it for a year
// and still fetch a new version the moment it changes.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"mime"
	"path"
	"strings"
)

//go:embed *.css *.js *.svg
var files embed.FS

// Favicon is paw.svg at 16, 32 and 48 pixels, PNG images in one ICO file, for browsers that ask
// for /favicon.ico. Made by rendering paw.svg at each size in headless Chromium (transparent
// background) and packing the PNGs into an ICO container; redo both when the icon changes.
//
//go:embed favicon.ico
var Favicon []byte

// Asset is one embedded file.
type Asset struct {
	Body        []byte
	ContentType string
}

var (
	urls   = map[string]string{} // file name → URL with the hash
	assets = map[string]Asset{}  // hashed name → file
)

// Prefix is the path the files are served under.
const Prefix = "/static/"

func init() {
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		panic(err)
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasSuffix(name, ".go") {
			continue
		}
		body, err := files.ReadFile(name)
		if err != nil {
			panic(err)
		}
		hashed := HashedName(name, body)
		urls[name] = Prefix + hashed
		assets[hashed] = Asset{Body: body, ContentType: ContentType(name)}
	}
}

// HashedName is name with the first 12 hex digits of body's SHA-256 before its extension:
// admin.css becomes admin.3f2a9c1be0d4.css.
func HashedName(name string, body []byte) string {
	sum := sha256.Sum256(body)
	ext := path.Ext(name)
	return strings.TrimSuffix(name, ext) + "." + hex.EncodeToString(sum[:])[:12] + ext
}

// ContentType is the media type of a file by its extension, UTF-8 for text.
func ContentType(name string) string {
	ctype := mime.TypeByExtension(path.Ext(name))
	if strings.HasPrefix(ctype, "text/") && !strings.Contains(ctype, "charset") {
		ctype += "; charset=utf-8"
	}
	return ctype
}

// URL returns the content-hashed address of an embedded file, such as
// /static/admin.3f2a9c1be0d4.css. Asking for a file that is not embedded is a programming error.
func URL(name string) string {
	u, ok := urls[name]
	if !ok {
		panic("static: no embedded file " + name)
	}
	return u
}

// Lookup returns the file served under a hashed name.
func Lookup(hashed string) (Asset, bool) {
	a, ok := assets[hashed]
	return a, ok
}
