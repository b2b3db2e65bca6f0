package webhooks

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/petstore/petstore/models"
)

// MaxURLLength bounds an endpoint's URL: 2,048 characters, what browsers and most servers
// accept, and far more than any receiver needs.
const MaxURLLength = 2048

// Defaults of ClientOptions.
const (
	defaultTimeout          = 10 * time.Second
	defaultMaxResponseBytes = 64 << 10
	defaultUserAgent        = "petstore-webhooks"
)

// Resolver looks host names up. *net.Resolver is one; tests use their own to map names to
// addresses without DNS.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// ClientOptions configures a Client. The zero value is the production setting: https only,
// public addresses only, 10 s per attempt, 64 KiB of a response read.
type ClientOptions struct {
	// AllowHTTP accepts plain http:// URLs (PETSTORE_WEBHOOK_ALLOW_HTTP).
	AllowHTTP bool
	// AllowPrivate accepts loopback, private and other non-public addresses
	// (PETSTORE_WEBHOOK_ALLOW_PRIVATE): local development and tests, whose receivers are on loopback.
	AllowPrivate bool
	// Timeout bounds a whole attempt: lookup, connection, TLS, request and response. Default 10 s.
	Timeout time.Duration
	// MaxResponseBytes is how much of a response's body is read (and discarded). Default 64 KiB.
	MaxResponseBytes int64
	// UserAgent is sent with each delivery. Default "petstore-webhooks".
	UserAgent string
	// Resolver looks host names up, for CheckURL and for connecting alike. Default
	// net.DefaultResolver; tests set their own so that no DNS is asked.
	Resolver Resolver
}

// Client checks webhook endpoint URLs and delivers to them. It is safe for concurrent use and
// keeps connections alive between deliveries to the same receiver.
type Client struct {
	o  ClientOptions
	hc *http.Client
}

// NewClient returns a Client with o's settings, defaults filled in.
func NewClient(o ClientOptions) *Client {
	if o.Timeout <= 0 {
		o.Timeout = defaultTimeout
	}
	if o.MaxResponseBytes <= 0 {
		o.MaxResponseBytes = defaultMaxResponseBytes
	}
	if o.UserAgent == "" {
		o.UserAgent = defaultUserAgent
	}
	if o.Resolver == nil {
		o.Resolver = net.DefaultResolver
	}
	c := &Client{o: o}
	dialer := &net.Dialer{Timeout: o.Timeout, KeepAlive: 30 * time.Second, ControlContext: c.control}
	c.hc = &http.Client{
		Transport: &http.Transport{
			// Never a proxy from the environment: the proxy's address would be dialled instead of
			// the receiver's, and the receiver's address never checked.
			Proxy: nil,
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				return c.dial(ctx, dialer, network, addr)
			},
			ForceAttemptHTTP2:      true,
			TLSClientConfig:        &tls.Config{MinVersion: tls.VersionTLS12},
			TLSHandshakeTimeout:    o.Timeout,
			MaxIdleConnsPerHost:    16, // several workers delivering to one receiver reuse their connections
			IdleConnTimeout:        90 * time.Second,
			MaxResponseHeaderBytes: 64 << 10,
			DisableCompression:     true, // the body is discarded: no reason to inflate it
		},
		// A 3xx is the answer: following it would reach a URL nobody checked.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return c
}

// CheckURL checks an endpoint's URL before it is registered: an absolute https URL (http too
// with AllowHTTP) without user name or password, whose host is a public address or a name all
// of whose addresses are public (unless AllowPrivate). It answers a models.EValidation error
// about the field "url", or nil. Connecting checks the address again (see Deliver), because a
// name may resolve differently later.
func (c *Client) CheckURL(ctx context.Context, raw string) error {
	u, err := c.parseURL(raw)
	if err != nil {
		return err
	}
	if c.o.AllowPrivate {
		return nil
	}
	host := u.Hostname()
	if addr, err := netip.ParseAddr(host); err == nil {
		if why := nonPublicReason(addr); why != "" {
			return urlError("must reach a public address; %s is %s", host, why)
		}
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, c.o.Timeout)
	defer cancel()
	addrs, err := c.o.Resolver.LookupNetIP(ctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		return urlError("the host name %s does not resolve to any address", host)
	}
	for _, addr := range addrs {
		if why := nonPublicReason(addr); why != "" {
			return urlError("must reach a public address; %s resolves to %s, %s", host, addr.Unmap(), why)
		}
	}
	return nil
}

// parseURL checks what can be checked without looking anything up.
func (c *Client) parseURL(raw string) (*url.URL, error) {
	if len(raw) > MaxURLLength {
		return nil, urlError("must be at most %d characters, got %d", MaxURLLength, len(raw))
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Opaque != "" {
		return nil, urlError("must be an absolute URL such as https://example.com/webhooks")
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && c.o.AllowHTTP:
	case u.Scheme == "http":
		return nil, urlError("must use https")
	default:
		return nil, urlError("must be an https URL, got the scheme %s", strconv.Quote(u.Scheme))
	}
	if u.User != nil {
		return nil, urlError("must not contain a user name or password")
	}
	host := u.Hostname()
	if host == "" {
		return nil, urlError("must name a host")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, urlError("must have a port from 1 to 65535, got %s", p)
		}
	}
	if _, err := netip.ParseAddr(host); err != nil && !validHostName(host) {
		return nil, urlError("must have a host name of ASCII letters, digits, hyphens and dots (international names in their xn-- form) or an IP address in its usual form, got %s", strconv.Quote(host))
	}
	return u, nil
}

// validHostName accepts DNS names (international ones in their xn-- form). A last label of
// digits only, or hexadecimal like 0x7f000001, is refused: some resolvers read "2130706433",
// "127.1" or "0x7f.1" as IP addresses, and the address must be checked as the address it is.
func validHostName(host string) bool {
	host = strings.TrimSuffix(host, ".")
	if host == "" || len(host) > 253 {
		return false
	}
	labels := strings.Split(host, ".")
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for _, r := range l {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
				return false
			}
		}
	}
	last := strings.ToLower(labels[len(labels)-1])
	if strings.HasPrefix(last, "0x") {
		return false
	}
	return strings.TrimLeft(last, "0123456789") != ""
}

func urlError(format string, args ...any) *models.Error {
	return models.FieldError("url", format, args...)
}

// Delivery is one attempt's message: the event's JSON, its id (the same on every retry), the
// attempt's timestamp and the endpoint's current secrets (two during a rotation).
type Delivery struct {
	URL       string
	MsgID     string
	Timestamp time.Time
	Body      []byte
	Secrets   []string
}

// Attempt is how one delivery attempt went. StatusCode is the receiver's answer, 0 without one.
// Err is nil for a 2xx answer; otherwise its message says what happened in words for an admin
// page ("answered 500", "timed out after 10s", "refused: 10.0.0.5 is a private address"). It
// never holds a secret, nor the URL (whose query may carry the receiver's token).
type Attempt struct {
	StatusCode int
	Duration   time.Duration
	Err        error
	// TimedOut says the receiver did not answer within the Timeout.
	TimedOut bool
}

// Deliver POSTs d as the Standard Webhooks specification says: Content-Type application/json,
// webhook-id, webhook-timestamp (Unix seconds) and webhook-signature (one signature per
// secret). The address is checked again as the connection is made, in the dialler's Control
// hook, so a name that resolved to a public address at registration and to a private one now
// (DNS rebinding) is refused before any packet is sent. Redirects are not followed; the whole
// attempt is bounded by the Timeout; at most MaxResponseBytes of the answer is read.
func (c *Client) Deliver(ctx context.Context, d Delivery) Attempt {
	start := time.Now()
	a := c.deliver(ctx, d)
	a.Duration = time.Since(start)
	return a
}

func (c *Client) deliver(parent context.Context, d Delivery) Attempt {
	if _, err := c.parseURL(d.URL); err != nil {
		return Attempt{Err: errors.New("refused: the URL " + strings.TrimPrefix(models.ErrorMessage(err), "url: "))}
	}
	sig, err := Sign(d.MsgID, d.Timestamp, d.Body, d.Secrets...)
	if err != nil {
		return Attempt{Err: errors.New("not sent: the endpoint's signing secret is malformed")}
	}
	ctx, cancel := context.WithTimeout(parent, c.o.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.URL, bytes.NewReader(d.Body))
	if err != nil {
		return Attempt{Err: errors.New("not sent: the URL is not usable")}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", c.o.UserAgent)
	req.Header.Set("webhook-id", d.MsgID)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(d.Timestamp.Unix(), 10))
	req.Header.Set("webhook-signature", sig)

	resp, err := c.hc.Do(req)
	if err != nil {
		return Attempt{Err: c.describe(parent, err), TimedOut: parent.Err() == nil && timedOut(err)}
	}
	// The answer's body means nothing to the sender; reading a bounded part of it lets the
	// connection be reused for the next delivery when the body is small.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, c.o.MaxResponseBytes))
	_ = resp.Body.Close()
	a := Attempt{StatusCode: resp.StatusCode}
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		a.Err = fmt.Errorf("answered %d, a redirect (redirects are not followed)", resp.StatusCode)
	default:
		a.Err = fmt.Errorf("answered %d", resp.StatusCode)
	}
	return a
}

// describe turns a failed request's error into a sentence for an admin page. The http package's
// *url.Error would repeat the URL, so only what lies beneath it is said.
func (c *Client) describe(parent context.Context, err error) error {
	var refused *refusedError
	var dnsErr *net.DNSError
	var unknownCA x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var certErr x509.CertificateInvalidError
	var verifyErr *tls.CertificateVerificationError
	switch {
	case errors.As(err, &refused):
		return refused
	case parent.Err() != nil:
		return errors.New("cancelled before an answer")
	case timedOut(err):
		return fmt.Errorf("timed out after %s", c.o.Timeout)
	case errors.As(err, &dnsErr):
		if dnsErr.IsNotFound {
			return fmt.Errorf("the host name %s does not resolve", dnsErr.Name)
		}
		return fmt.Errorf("looking up the host name %s failed", dnsErr.Name)
	case errors.Is(err, syscall.ECONNREFUSED):
		return errors.New("connection refused")
	case errors.Is(err, syscall.ECONNRESET):
		return errors.New("connection reset by the receiver")
	case errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH):
		return errors.New("no route to the receiver's address")
	case errors.As(err, &unknownCA):
		return errors.New("TLS certificate not trusted: signed by an unknown authority")
	case errors.As(err, &hostErr):
		return errors.New("TLS certificate not valid for the URL's host")
	case errors.As(err, &certErr):
		return errors.New("TLS certificate not valid: " + certErr.Error())
	case errors.As(err, &verifyErr):
		return errors.New("TLS certificate not accepted")
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("the receiver closed the connection without an answer")
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return errors.New("failed: " + err.Error())
}

func timedOut(err error) bool {
	var t interface{ Timeout() bool }
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &t) && t.Timeout()
}

// refusedError is a connection refused by the Control hook: the address is not public.
type refusedError struct {
	addr netip.Addr
	why  string
}

func (e *refusedError) Error() string { return "refused: " + e.addr.String() + " is " + e.why }

// dial connects to addr's host, trying each of its addresses in turn. The addresses are not
// checked here but in control, where the socket is about to connect: whatever path led to an
// address, it is the one checked.
func (c *Client) dial(ctx context.Context, d *net.Dialer, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	var addrs []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{ip}
	} else if addrs, err = c.o.Resolver.LookupNetIP(ctx, "ip", host); err != nil {
		return nil, err
	} else if len(addrs) == 0 {
		return nil, &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
	}
	var first error
	for _, ip := range addrs {
		conn, err := d.DialContext(ctx, network, net.JoinHostPort(ip.Unmap().String(), port))
		if err == nil {
			return conn, nil
		}
		if first == nil {
			first = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, first
}

// control runs after the socket is made and before it connects: a non-public address is
// refused before any packet leaves.
func (c *Client) control(_ context.Context, network, address string, _ syscall.RawConn) error {
	if c.o.AllowPrivate {
		return nil
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("refused: %s is not an IP address and port", address)
	}
	if why := nonPublicReason(ap.Addr()); why != "" {
		return &refusedError{addr: ap.Addr().Unmap(), why: why}
	}
	return nil
}
