package media

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"strconv"

	"github.com/disintegration/imaging"
	"github.com/petstore/petstore/models"
	"golang.org/x/sync/semaphore"

	// WebP uploads are decoded with x/image; the standard library has none.
	_ "golang.org/x/image/webp"
)

// The limits of an upload (docs/design.md, "Photos").
const (
	MaxUploadBytes = 10 << 20
	MaxPixels      = 40_000_000
	MaxSide        = 2048 // the stored image's long side, at most
	ThumbSide      = 400  // the thumbnail's long side, at most
	jpegQuality    = 85
)

// UploadTypes are the media types an upload may declare, with the decoder's name of each.
var UploadTypes = map[string]string{"image/jpeg": "jpeg", "image/png": "png", "image/webp": "webp"}

// Image is one encoded image, ready to store under Key.
type Image struct {
	Key           string
	ContentType   string
	Data          []byte
	Width, Height int
}

// Photo is what an upload becomes: the image as stored and its thumbnail.
type Photo struct{ Full, Thumb Image }

// Processor re-encodes uploads. A decoded image takes far more memory than its file (a 10 MiB
// JPEG may hold 40 megapixels: 120 MB decoded), so decodes share a budget of bytes: each waits
// until its estimate fits, which keeps the process's memory bounded however many uploads arrive
// at once; one larger than the whole budget runs alone.
type Processor struct {
	sem    *semaphore.Weighted
	budget int64
}

// NewProcessor returns a processor whose decodes together hold at most budget bytes.
func NewProcessor(budget int64) *Processor {
	return &Processor{sem: semaphore.NewWeighted(budget), budget: budget}
}

func invalid(format string, args ...any) error {
	return &models.Error{Code: models.EValidation, Field: "body", Message: "body: " + fmt.Sprintf(format, args...)}
}

// Process checks that body is an image of the declared type within the limits, reading only its
// header first, then decodes it, applies its EXIF orientation, scales it to MaxSide and
// ThumbSide, and encodes both without any metadata. JPEG stays JPEG and PNG stays PNG; WebP
// becomes JPEG, or PNG when it has transparency: the Go libraries have no WebP encoder.
func (p *Processor) Process(ctx context.Context, body []byte, declared string) (Photo, error) {
	want := UploadTypes[declared]
	cfg, format, err := image.DecodeConfig(bytes.NewReader(body))
	if err != nil || format != want {
		return Photo{}, invalid("not a decodable %s image", declared)
	}
	if cfg.Width < 1 || cfg.Height < 1 {
		return Photo{}, invalid("the image has no pixels")
	}
	if px := int64(cfg.Width) * int64(cfg.Height); px > MaxPixels {
		return Photo{}, invalid("the image is %d×%d, %s megapixels; at most 40 are accepted", cfg.Width, cfg.Height,
			strconv.FormatFloat(float64(px)/1e6, 'f', 1, 64))
	}
	cost := min(int64(cfg.Width)*int64(cfg.Height)*bytesPerPixel(cfg.ColorModel), p.budget)
	if err := p.sem.Acquire(ctx, cost); err != nil {
		return Photo{}, err
	}
	img, err := decode(body)
	p.sem.Release(cost)
	if err != nil {
		return Photo{}, invalid("not a decodable %s image: %v", declared, err)
	}
	return encodeBoth(img, format, orientation(body, format))
}

// decode decodes the image and, within the same budget, scales it to MaxSide, so the full-size
// decoded image is dropped before the next decode may start.
func decode(body []byte) (img image.Image, err error) {
	defer func() {
		// A decoder that panics on a crafted file refuses that file, not the service.
		if r := recover(); r != nil {
			err = errPanic
		}
	}()
	full, _, err := image.Decode(bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	return fit(full, MaxSide), nil
}

type decodePanic struct{}

func (decodePanic) Error() string { return "the decoder failed on it" }

var errPanic error = decodePanic{}

// fit scales img down so its long side is at most side; a smaller image is kept as it is.
func fit(img image.Image, side int) image.Image {
	b := img.Bounds()
	if b.Dx() <= side && b.Dy() <= side {
		return img
	}
	if b.Dx() >= b.Dy() {
		return imaging.Resize(img, side, 0, imaging.CatmullRom)
	}
	return imaging.Resize(img, 0, side, imaging.CatmullRom)
}

// bytesPerPixel estimates what a decoded pixel of the model takes, with the scaling's copy (an
// NRGBA row of the scaled width for every row of the original: up to 4 bytes a pixel).
func bytesPerPixel(m color.Model) int64 {
	switch m {
	case color.GrayModel:
		return 5
	case color.Gray16Model:
		return 6
	case color.RGBA64Model, color.NRGBA64Model:
		return 12
	case color.YCbCrModel:
		return 7
	}
	return 8
}

// encodeBoth orients img and encodes it and its thumbnail.
func encodeBoth(img image.Image, format string, orient int) (Photo, error) {
	img = orient8(img, orient)
	outFormat := format
	if format == "webp" {
		outFormat = "jpeg"
		if !opaque(img) {
			outFormat = "png"
		}
	}
	full, err := encode(img, outFormat)
	if err != nil {
		return Photo{}, err
	}
	thumb, err := encode(fit(img, ThumbSide), outFormat)
	if err != nil {
		return Photo{}, err
	}
	return Photo{Full: full, Thumb: thumb}, nil
}

func opaque(img image.Image) bool {
	if o, ok := img.(interface{ Opaque() bool }); ok {
		return o.Opaque()
	}
	return false
}

func encode(img image.Image, format string) (Image, error) {
	var buf bytes.Buffer
	out := Image{Width: img.Bounds().Dx(), Height: img.Bounds().Dy()}
	var ext string
	switch format {
	case "png":
		out.ContentType, ext = "image/png", ".png"
		if err := (&png.Encoder{CompressionLevel: png.DefaultCompression}).Encode(&buf, img); err != nil {
			return out, err
		}
	default:
		out.ContentType, ext = "image/jpeg", ".jpg"
		if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: jpegQuality}); err != nil {
			return out, err
		}
	}
	out.Data = buf.Bytes()
	sum := sha256.Sum256(out.Data)
	out.Key = hex.EncodeToString(sum[:]) + ext
	return out, nil
}

// orient8 applies an EXIF orientation (1 to 8) to img.
func orient8(img image.Image, o int) image.Image {
	switch o {
	case 2:
		return imaging.FlipH(img)
	case 3:
		return imaging.Rotate180(img)
	case 4:
		return imaging.FlipV(img)
	case 5:
		return imaging.Transpose(img)
	case 6:
		return imaging.Rotate270(img)
	case 7:
		return imaging.Transverse(img)
	case 8:
		return imaging.Rotate90(img)
	}
	return img
}
