package webhooks

// INTERIM: a minimal stand-in for the outbound client the whclient branch builds (client.go),
// with its signatures, so the deliveries can be built and tested before it is merged. Deleted
// in favour of theirs at the merge.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"time"

	"github.com/petstore/petstore/models"
)

// ClientOptions say which URLs the client may reach.
type ClientOptions struct {
	AllowHTTP    bool
	AllowPrivate bool
}

// Client sends deliveries.
type Client struct {
	opt  ClientOptions
	http *http.Client
}

// NewClient returns a client.
func NewClient(o ClientOptions) *Client {
	return &Client{opt: o, http: &http.Client{Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// CheckURL refuses a URL deliveries must not go to.
func (c *Client) CheckURL(ctx context.Context, rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "https" && !(c.opt.AllowHTTP && u.Scheme == "http")) {
		return models.FieldError("url", "must be an https URL")
	}
	if c.opt.AllowPrivate {
		return nil
	}
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", u.Hostname())
	if err != nil {
		return models.FieldError("url", "host does not resolve")
	}
	for _, a := range addrs {
		if !a.IsGlobalUnicast() || a.IsPrivate() || a.IsLoopback() || a == netip.IPv4Unspecified() {
			return models.FieldError("url", "host resolves to a private address")
		}
	}
	return nil
}

// Delivery is one POST.
type Delivery struct {
	URL       string
	MsgID     string
	Timestamp time.Time
	Body      []byte
	Secrets   []string
}

// Attempt is what one POST got.
type Attempt struct {
	StatusCode int
	Duration   time.Duration
	Err        error
}

// Deliver sends d.
func (c *Client) Deliver(ctx context.Context, d Delivery) Attempt {
	start := time.Now()
	sig, err := Sign(d.MsgID, d.Timestamp, d.Body, d.Secrets...)
	if err != nil {
		return Attempt{Err: err}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.URL, bytes.NewReader(d.Body))
	if err != nil {
		return Attempt{Err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("webhook-id", d.MsgID)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(d.Timestamp.Unix(), 10))
	req.Header.Set("webhook-signature", sig)
	res, err := c.http.Do(req)
	if err != nil {
		return Attempt{Duration: time.Since(start), Err: err}
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	_ = res.Body.Close()
	a := Attempt{StatusCode: res.StatusCode, Duration: time.Since(start)}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		a.Err = errors.New(fmt.Sprint("answered ", res.StatusCode))
	}
	return a
}
