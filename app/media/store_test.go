package media_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/app/media"
)

func key(data []byte, ext string) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]) + ext
}

// TestBothStoresKeepReadRangeListAndDeleteBlobs holds the folder and the S3 bucket (a real MinIO,
// see testenv.S3Bucket) to the same behaviour.
func TestBothStoresKeepReadRangeListAndDeleteBlobs(t *testing.T) {
	t.Parallel()
	stores := map[string]func(t *testing.T) media.Store{
		"folder": func(t *testing.T) media.Store { return media.NewFolder(t.TempDir() + "/media") },
		"s3": func(t *testing.T) media.Store {
			b := testenv.S3Bucket(t)
			cfg, err := media.ParseS3URL(b.BucketURL())
			if err != nil {
				t.Fatal(err)
			}
			s, err := media.NewS3(cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
	}
	for name, open := range stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			s := open(t)
			if err := s.Ready(ctx); err != nil {
				t.Fatalf("Ready: %v", err)
			}
			data := []byte("0123456789 a photo's bytes")
			k := key(data, ".jpg")
			if _, err := s.Stat(ctx, k); !errors.Is(err, media.ErrNotFound) {
				t.Fatalf("Stat of a missing blob: %v, want ErrNotFound", err)
			}
			if _, err := s.Get(ctx, k, 0, -1); !errors.Is(err, media.ErrNotFound) {
				t.Fatalf("Get of a missing blob: %v, want ErrNotFound", err)
			}
			before := time.Now().Add(-time.Minute)
			for range 2 { // a second Put of the same content changes nothing
				if err := s.Put(ctx, k, "image/jpeg", data); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Put(ctx, "../escape.jpg", "image/jpeg", data); err == nil {
				t.Fatal("Put under a key that is not a hash was accepted")
			}
			if n, err := s.Stat(ctx, k); err != nil || n != int64(len(data)) {
				t.Fatalf("Stat: %d, %v; want %d", n, err, len(data))
			}
			for _, r := range []struct{ off, n int64 }{{0, -1}, {0, 10}, {11, -1}, {5, 3}, {int64(len(data)) - 1, 1}} {
				rc, err := s.Get(ctx, k, r.off, r.n)
				if err != nil {
					t.Fatal(err)
				}
				got, err := io.ReadAll(rc)
				_ = rc.Close()
				want := data[r.off:]
				if r.n >= 0 {
					want = want[:r.n]
				}
				if err != nil || !bytes.Equal(got, want) {
					t.Fatalf("Get(%d, %d) = %q, %v; want %q", r.off, r.n, got, err, want)
				}
			}
			var listed []string
			collect := func(k string) error { listed = append(listed, k); return nil }
			if err := s.List(ctx, before, collect); err != nil || len(listed) != 0 {
				t.Fatalf("List before the blob was stored: %v, %v; want none", listed, err)
			}
			if err := s.List(ctx, time.Now().Add(time.Minute), collect); err != nil || !slices.Equal(listed, []string{k}) {
				t.Fatalf("List: %v, %v; want [%s]", listed, err, k)
			}
			if err := s.Delete(ctx, k); err != nil {
				t.Fatal(err)
			}
			if err := s.Delete(ctx, k); err != nil {
				t.Fatalf("Delete of a deleted blob: %v", err)
			}
			if _, err := s.Stat(ctx, k); !errors.Is(err, media.ErrNotFound) {
				t.Fatalf("Stat after Delete: %v, want ErrNotFound", err)
			}
		})
	}
}

func TestBucketURLsAreReadOrRefusedWithAReason(t *testing.T) {
	t.Parallel()
	good, err := media.ParseS3URL("s3://photos/shop?endpoint=http%3A%2F%2F127.0.0.1%3A9000&region=eu-west-1")
	if err != nil || good.Bucket != "photos" || good.Prefix != "shop/" || good.Endpoint != "127.0.0.1:9000" || good.Secure || good.Region != "eu-west-1" {
		t.Fatalf("ParseS3URL: %+v, %v", good, err)
	}
	aws, err := media.ParseS3URL("s3://photos")
	if err != nil || aws.Endpoint != "s3.amazonaws.com" || !aws.Secure {
		t.Fatalf("a bucket on AWS: %+v, %v", aws, err)
	}
	for _, bad := range []string{"https://photos", "s3://", "s3://photos?endpoint=ftp://host", "s3://photos?endpoint=http://host/path", "s3://photos?acl=public", "s3://key:secret@photos"} {
		if _, err := media.ParseS3URL(bad); err == nil {
			t.Errorf("ParseS3URL(%q) accepted", bad)
		}
	}
}
