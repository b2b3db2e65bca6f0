package app

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/jpeg"

	"github.com/petstore/petstore/app/media"
	"github.com/petstore/petstore/models"
	"gorm.io/gorm"
)

// seedPhotoPets is how many demo pets get a photo: enough for the lists and the admin pages to
// show covers, few enough that a seed stays quick.
const seedPhotoPets = 12

// seedPhotos gives the first live pets without photos a picture drawn here (no download), until
// seedPhotoPets pets have one; a second run adds none. Each goes through the upload's own path:
// re-encoded, stored, then added as the seed.
func seedPhotos(ctx context.Context, db *gorm.DB, store media.Store) (int, error) {
	var have int64
	if err := db.WithContext(ctx).Model(&models.Photo{}).Distinct("pet_id").Count(&have).Error; err != nil {
		return 0, err
	}
	if have >= seedPhotoPets {
		return 0, nil
	}
	var ids []int64
	err := db.WithContext(ctx).Raw("SELECT id FROM pets WHERE deleted_at IS NULL AND id NOT IN (SELECT pet_id FROM photos) ORDER BY id LIMIT ?",
		seedPhotoPets-have).Scan(&ids).Error
	if err != nil {
		return 0, err
	}
	proc := media.NewProcessor(decodeBudget)
	photos := models.NewPhotoStore(db)
	for i, id := range ids {
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, drawPet(int(id)+i), &jpeg.Options{Quality: 90}); err != nil {
			return i, err
		}
		img, err := proc.Process(ctx, buf.Bytes(), "image/jpeg")
		if err != nil {
			return i, err
		}
		for _, im := range []media.Image{img.Full, img.Thumb} {
			if err := store.Put(ctx, im.Key, im.ContentType, im.Data); err != nil {
				return i, err
			}
		}
		_, err = photos.Add(ctx, id, models.NewPhoto{Key: img.Full.Key, ThumbKey: img.Thumb.Key, ContentType: img.Full.ContentType,
			Width: img.Full.Width, Height: img.Full.Height}, models.SeedActor, nil)
		if err != nil {
			return i, err
		}
	}
	return len(ids), nil
}

// seedColours are the backgrounds and coats of the drawn pets.
var seedColours = []color.RGBA{
	{R: 0xf4, G: 0xe1, B: 0xc1, A: 0xff}, {R: 0xc9, G: 0xe4, B: 0xde, A: 0xff}, {R: 0xe8, G: 0xd5, B: 0xf0, A: 0xff},
	{R: 0xff, G: 0xf1, B: 0xb8, A: 0xff}, {R: 0xd6, G: 0xe6, B: 0xf5, A: 0xff}, {R: 0xf7, G: 0xd4, B: 0xd4, A: 0xff},
}

var seedCoats = []color.RGBA{
	{R: 0x8b, G: 0x5a, B: 0x2b, A: 0xff}, {R: 0x33, G: 0x33, B: 0x33, A: 0xff}, {R: 0xd9, G: 0x8c, B: 0x3f, A: 0xff},
	{R: 0xa0, G: 0xa0, B: 0xa0, A: 0xff}, {R: 0xf5, G: 0xf0, B: 0xe6, A: 0xff},
}

// drawPet draws a simple animal, a body, a head and two ears, on a plain background; n picks
// the colours and the pose.
func drawPet(n int) image.Image {
	const w, h = 800, 600
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	bg, coat := seedColours[n%len(seedColours)], seedCoats[n%len(seedCoats)]
	dark := color.RGBA{R: coat.R / 2, G: coat.G / 2, B: coat.B / 2, A: 0xff}
	shift := (n % 3) * 60
	ellipse := func(cx, cy, rx, ry int, c color.RGBA) {
		for y := cy - ry; y <= cy+ry; y++ {
			for x := cx - rx; x <= cx+rx; x++ {
				dx, dy := float64(x-cx)/float64(rx), float64(y-cy)/float64(ry)
				if dx*dx+dy*dy <= 1 && image.Pt(x, y).In(img.Rect) {
					img.SetRGBA(x, y, c)
				}
			}
		}
	}
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = bg.R, bg.G, bg.B, bg.A
	}
	ellipse(w/2, h-40, 300, 30, color.RGBA{R: bg.R - 30, G: bg.G - 30, B: bg.B - 30, A: 0xff}) // shadow
	ellipse(380+shift/2, 400, 200, 120, coat)                                                  // body
	ellipse(560+shift, 260, 95, 85, coat)                                                      // head
	ellipse(500+shift, 180, 30, 55, dark)                                                      // ears
	ellipse(620+shift, 180, 30, 55, dark)
	ellipse(530+shift, 250, 10, 12, color.RGBA{A: 0xff}) // eyes
	ellipse(590+shift, 250, 10, 12, color.RGBA{A: 0xff})
	ellipse(560+shift, 295, 16, 11, dark) // nose
	return img
}

// mediaBase is where the photos are served from as the configuration says, for what the command
// line records (events): PETSTORE_MEDIA_URL, else /media/ under PETSTORE_PUBLIC_URL; empty leaves
// the URLs relative, as no address is known.
func mediaBase(cfg Config) string {
	switch {
	case cfg.MediaURL != "":
		return cfg.MediaURL + "/"
	case cfg.PublicURL != "":
		return cfg.PublicURL + "/media/"
	}
	return ""
}
