package media

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// S3Config is an S3-compatible bucket, as PETSTORE_MEDIA_BUCKET names it:
// s3://bucket[/prefix]?endpoint=http://host:9000&region=us-east-1. Without an endpoint the bucket
// is on AWS. Credentials are not part of it: they come from the standard AWS variables
// (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), the AWS credentials file, or the
// machine's IAM role, in that order.
type S3Config struct {
	Bucket string
	Prefix string // before every key, ending in "/" when set
	// Endpoint is the server's host[:port]; Secure says whether it speaks HTTPS.
	Endpoint string
	Secure   bool
	Region   string
}

// ParseS3URL reads a bucket URL; the error says what is wrong with it.
func ParseS3URL(s string) (S3Config, error) {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "s3" || u.Host == "" || u.User != nil || u.Fragment != "" {
		return S3Config{}, errors.New("must be s3://bucket?endpoint=https://host:port (endpoint optional on AWS)")
	}
	c := S3Config{Bucket: u.Host, Endpoint: "s3.amazonaws.com", Secure: true}
	if p := strings.Trim(u.Path, "/"); p != "" {
		c.Prefix = p + "/"
	}
	q := u.Query()
	for k := range q {
		if k != "endpoint" && k != "region" {
			return S3Config{}, fmt.Errorf("unknown parameter %q: only endpoint and region are read", k)
		}
	}
	c.Region = q.Get("region")
	if ep := q.Get("endpoint"); ep != "" {
		e, err := url.Parse(ep)
		if err != nil || (e.Scheme != "http" && e.Scheme != "https") || e.Host == "" || strings.Trim(e.Path, "/") != "" {
			return S3Config{}, fmt.Errorf("endpoint must be an http or https URL such as http://127.0.0.1:9000, got %q", ep)
		}
		c.Endpoint, c.Secure = e.Host, e.Scheme == "https"
	}
	return c, nil
}

// S3 keeps blobs in a bucket of an S3-compatible server, which every instance shares.
type S3 struct {
	client *minio.Client
	cfg    S3Config
}

// NewS3 returns a store on the bucket; creds nil reads the standard AWS credentials.
func NewS3(cfg S3Config, creds *credentials.Credentials) (*S3, error) {
	if creds == nil {
		creds = credentials.NewChainCredentials([]credentials.Provider{
			&credentials.EnvAWS{},
			&credentials.FileAWSCredentials{},
			&credentials.IAM{Client: &http.Client{Transport: http.DefaultTransport}},
		})
	}
	client, err := minio.New(cfg.Endpoint, &minio.Options{Creds: creds, Secure: cfg.Secure, Region: cfg.Region})
	if err != nil {
		return nil, fmt.Errorf("media bucket %s: %w", cfg.Bucket, err)
	}
	return &S3{client: client, cfg: cfg}, nil
}

func notFound(err error) bool {
	code := minio.ToErrorResponse(err).Code
	return code == minio.NoSuchKey || code == "NotFound"
}

// Put uploads the blob in one request; S3 makes it visible whole or not at all.
func (s *S3) Put(ctx context.Context, key, contentType string, data []byte) error {
	if !ValidKey(key) {
		return fmt.Errorf("media: invalid key %q", key)
	}
	_, err := s.client.PutObject(ctx, s.cfg.Bucket, s.cfg.Prefix+key, bytes.NewReader(data), int64(len(data)),
		minio.PutObjectOptions{ContentType: contentType, CacheControl: "public, max-age=31536000, immutable"})
	return err
}

// Stat returns the blob's size.
func (s *S3) Stat(ctx context.Context, key string) (int64, error) {
	if !ValidKey(key) {
		return 0, ErrNotFound
	}
	info, err := s.client.StatObject(ctx, s.cfg.Bucket, s.cfg.Prefix+key, minio.StatObjectOptions{})
	if notFound(err) {
		return 0, ErrNotFound
	}
	if err != nil {
		return 0, err
	}
	return info.Size, nil
}

// Get reads the blob, or the range asked for, in one request.
func (s *S3) Get(ctx context.Context, key string, off, n int64) (io.ReadCloser, error) {
	if !ValidKey(key) {
		return nil, ErrNotFound
	}
	var opts minio.GetObjectOptions
	switch {
	case n == 0:
		return io.NopCloser(bytes.NewReader(nil)), nil
	case n > 0:
		if err := opts.SetRange(off, off+n-1); err != nil {
			return nil, err
		}
	case off > 0:
		if err := opts.SetRange(off, 0); err != nil {
			return nil, err
		}
	}
	// GetObject sends its request on the first read; Stat sends it now, so a missing blob is
	// known before the answer's headers are written.
	obj, err := s.client.GetObject(ctx, s.cfg.Bucket, s.cfg.Prefix+key, opts)
	if err == nil {
		_, err = obj.Stat()
	}
	if err != nil {
		if obj != nil {
			_ = obj.Close()
		}
		if notFound(err) {
			return nil, ErrNotFound
		}
		return nil, err
	}
	return obj, nil
}

// Delete removes the blob; S3 answers a missing one with success.
func (s *S3) Delete(ctx context.Context, key string) error {
	if !ValidKey(key) {
		return nil
	}
	return s.client.RemoveObject(ctx, s.cfg.Bucket, s.cfg.Prefix+key, minio.RemoveObjectOptions{})
}

// List lists the bucket under the prefix.
func (s *S3) List(ctx context.Context, before time.Time, fn func(string) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // stops the listing when fn fails
	for obj := range s.client.ListObjects(ctx, s.cfg.Bucket, minio.ListObjectsOptions{Prefix: s.cfg.Prefix, Recursive: true}) {
		if obj.Err != nil {
			return obj.Err
		}
		key := strings.TrimPrefix(obj.Key, s.cfg.Prefix)
		if !ValidKey(key) || !obj.LastModified.Before(before) {
			continue
		}
		if err := fn(key); err != nil {
			return err
		}
	}
	return nil
}

// Ready checks that the bucket exists and the credentials may see it.
func (s *S3) Ready(ctx context.Context) error {
	ok, err := s.client.BucketExists(ctx, s.cfg.Bucket)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("bucket %s does not exist", s.cfg.Bucket)
	}
	return nil
}
