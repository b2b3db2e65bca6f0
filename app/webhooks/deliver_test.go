package webhooks_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/petstore/petstore/app/webhooks"
)

// local is a client for receivers on loopback over plain http, as the service's tests run it.
func local(o webhooks.ClientOptions) *webhooks.Client {
	o.AllowHTTP, o.AllowPrivate = true, true
	return webhooks.NewClient(o)
}

func delivery(t *testing.T, url string, secrets ...string) webhooks.Delivery {
	t.Helper()
	if len(secrets) == 0 {
		s, err := webhooks.NewSecret()
		if err != nil {
			t.Fatal(err)
		}
		secrets = []string{s}
	}
	return webhooks.Delivery{
		URL: url, MsgID: "evt_01HZX3", Timestamp: time.Now(), Secrets: secrets,
		Body: []byte(`{"id":"evt_01HZX3","type":"order.approved","createdAt":"2026-05-01T10:00:00Z","data":{"object":{"id":7}}}`),
	}
}

func TestDeliverSignedPost(t *testing.T) {
	newSecret, _ := webhooks.NewSecret()
	oldSecret, _ := webhooks.NewSecret()
	type received struct {
		method, contentType, userAgent string
		header                         http.Header
		body                           []byte
	}
	got := make(chan received, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- received{r.Method, r.Header.Get("Content-Type"), r.Header.Get("User-Agent"), r.Header.Clone(), body}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()

	d := delivery(t, srv.URL+"/hooks?token=abc", newSecret, oldSecret)
	a := local(webhooks.ClientOptions{UserAgent: "petstore-test/1"}).Deliver(context.Background(), d)
	if a.Err != nil || a.StatusCode != http.StatusNoContent || a.Duration <= 0 {
		t.Fatalf("Deliver = %+v, want 204 without error and a duration", a)
	}
	r := <-got
	if r.method != http.MethodPost || r.contentType != "application/json" || r.userAgent != "petstore-test/1" || string(r.body) != string(d.Body) {
		t.Errorf("received %s %q %q %s, want POST of the body as application/json by petstore-test/1", r.method, r.contentType, r.userAgent, r.body)
	}
	if id, ts := r.header.Get("webhook-id"), r.header.Get("webhook-timestamp"); id != d.MsgID || ts != strconv.FormatInt(d.Timestamp.Unix(), 10) {
		t.Errorf("webhook-id %q, webhook-timestamp %q; want %q and %d", id, ts, d.MsgID, d.Timestamp.Unix())
	}
	// A receiver holding either secret verifies, with the specification's own library.
	for name, secret := range map[string]string{"new": newSecret, "old": oldSecret} {
		wh, err := standardwebhooks.NewWebhook(secret)
		if err != nil {
			t.Fatal(err)
		}
		if err := wh.Verify(r.body, r.header); err != nil {
			t.Errorf("the %s secret does not verify the delivery: %v", name, err)
		}
	}
}

func TestDeliverFailures(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "database is down", http.StatusInternalServerError)
	}))
	defer srv.Close()
	c := local(webhooks.ClientOptions{})
	a := c.Deliver(context.Background(), delivery(t, srv.URL))
	if a.StatusCode != 500 || a.Err == nil || a.Err.Error() != "answered 500" {
		t.Errorf("a 500: Deliver = %+v, want status 500 and the error \"answered 500\"", a)
	}

	secret, _ := webhooks.NewSecret()
	a = c.Deliver(context.Background(), delivery(t, srv.URL, secret, "whsec_short"))
	if a.StatusCode != 0 || a.Err == nil || !strings.Contains(a.Err.Error(), "signing secret is malformed") || strings.Contains(a.Err.Error(), "short") {
		t.Errorf("a malformed secret: Deliver = %+v, want no request and an error that does not show the secret", a)
	}

	closed := srv.URL
	srv.Close()
	a = local(webhooks.ClientOptions{}).Deliver(context.Background(), delivery(t, closed))
	if a.StatusCode != 0 || a.Err == nil || a.Err.Error() != "connection refused" {
		t.Errorf("nobody listening: Deliver = %+v, want \"connection refused\"", a)
	}

	https := webhooks.NewClient(webhooks.ClientOptions{AllowPrivate: true})
	a = https.Deliver(context.Background(), delivery(t, "http://127.0.0.1:1/"))
	if a.Err == nil || a.Err.Error() != "refused: the URL must use https" {
		t.Errorf("http without AllowHTTP: Deliver = %+v, want refused", a)
	}
}

func TestDeliverDoesNotFollowRedirects(t *testing.T) {
	var followed atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		followed.Add(1)
	}))
	defer target.Close()
	for _, code := range []int{http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, target.URL+"/elsewhere", code)
		}))
		a := local(webhooks.ClientOptions{}).Deliver(context.Background(), delivery(t, srv.URL))
		srv.Close()
		if a.StatusCode != code || a.Err == nil || !strings.HasPrefix(a.Err.Error(), "answered "+strconv.Itoa(code)+", a redirect") {
			t.Errorf("a %d: Deliver = %+v, want a failed attempt with status %d", code, a, code)
		}
	}
	if n := followed.Load(); n != 0 {
		t.Errorf("the redirect's target got %d requests, want none", n)
	}
}

func TestDeliverTimesOut(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release // answers only once the test is over
	}))
	defer srv.Close()
	defer close(release)
	a := local(webhooks.ClientOptions{Timeout: 200 * time.Millisecond}).Deliver(context.Background(), delivery(t, srv.URL))
	if a.StatusCode != 0 || a.Err == nil || a.Err.Error() != "timed out after 200ms" {
		t.Errorf("Deliver = %+v, want \"timed out after 200ms\"", a)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a = local(webhooks.ClientOptions{}).Deliver(ctx, delivery(t, srv.URL))
	if a.Err == nil || a.Err.Error() != "cancelled before an answer" {
		t.Errorf("a cancelled context: Deliver = %+v, want \"cancelled before an answer\"", a)
	}
}

// A receiver answering 200 with an endless body: the sender reads its bound and hangs up, so the
// receiver cannot write more than that plus what the kernel's socket buffers hold (a few MiB).
func TestDeliverReadsABoundedResponse(t *testing.T) {
	const offered = 256 << 20
	written := make(chan int64, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		chunk := make([]byte, 32<<10)
		var n int64
		for n < offered {
			k, err := w.Write(chunk)
			n += int64(k)
			if err != nil {
				break
			}
		}
		written <- n
	}))
	defer srv.Close()
	a := local(webhooks.ClientOptions{MaxResponseBytes: 1 << 10}).Deliver(context.Background(), delivery(t, srv.URL))
	if a.Err != nil || a.StatusCode != http.StatusOK {
		t.Fatalf("Deliver = %+v, want 200", a)
	}
	if n := <-written; n >= offered/4 {
		t.Errorf("the receiver wrote %d bytes before the sender hung up, want far fewer than %d", n, offered)
	}
}

// countingListener counts the connections that reached the receiver.
type countingListener struct {
	net.Listener
	accepted atomic.Int32
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.accepted.Add(1)
	}
	return c, err
}

// The connect-time check: a name that was public when registered and resolves to loopback now
// (DNS rebinding), a loopback literal, and "localhost" are refused in the dialler's Control hook,
// before the socket connects, so the receiver never sees a connection. A last delivery with
// private addresses allowed shows the receiver was there to be reached.
func TestDeliverRefusesAtConnectTime(t *testing.T) {
	ln := &countingListener{Listener: must(net.Listen("tcp", "127.0.0.1:0"))}
	srv := &http.Server{Handler: http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}), ReadHeaderTimeout: time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)

	names := &resolver{answers: map[string][][]string{
		"rebind.example":     {{"93.184.215.14"}, {"127.0.0.1"}},
		"mapped.example":     {{"::ffff:127.0.0.1"}},
		"sixtofour.example":  {{"2002:7f00:1::"}},
		"translated.example": {{"::ffff:0:7f00:1"}},
		"teredo.example":     {{"2001:0:808:808::80ff:fffe"}},
	}}
	c := webhooks.NewClient(webhooks.ClientOptions{AllowHTTP: true, Resolver: names})
	if err := c.CheckURL(context.Background(), "http://rebind.example:"+port+"/"); err != nil {
		t.Fatalf("registration of a name that is public for now: %v", err)
	}
	for _, tc := range []struct{ url, want string }{
		{"http://rebind.example:" + port + "/", "refused: 127.0.0.1 is a loopback address"},
		{"http://mapped.example:" + port + "/", "refused: 127.0.0.1 is a loopback address"},
		{"http://127.0.0.1:" + port + "/", "refused: 127.0.0.1 is a loopback address"},
		{"http://[::ffff:127.0.0.1]:" + port + "/", "refused: 127.0.0.1 is a loopback address"},
		{"http://sixtofour.example:" + port + "/", "refused: 2002:7f00:1:: is a 6to4 address carrying 127.0.0.1, a loopback address"},
		{"http://translated.example:" + port + "/", "refused: ::ffff:0:7f00:1 is an IPv4-translated address carrying 127.0.0.1, a loopback address"},
		{"http://teredo.example:" + port + "/", "refused: 2001:0:808:808::80ff:fffe is a Teredo address carrying 127.0.0.1, a loopback address"},
		{"http://[2002:7f00:1::]:" + port + "/", "refused: 2002:7f00:1:: is a 6to4 address carrying 127.0.0.1, a loopback address"},
	} {
		a := c.Deliver(context.Background(), delivery(t, tc.url))
		if a.StatusCode != 0 || a.Err == nil || a.Err.Error() != tc.want {
			t.Errorf("%s: Deliver = %+v, want %q", tc.url, a, tc.want)
		}
	}
	// The machine's own resolver: localhost is 127.0.0.1 and perhaps ::1, each refused.
	a := webhooks.NewClient(webhooks.ClientOptions{AllowHTTP: true}).Deliver(context.Background(), delivery(t, "http://localhost:"+port+"/"))
	if a.Err == nil || !strings.HasPrefix(a.Err.Error(), "refused: ") || !strings.HasSuffix(a.Err.Error(), "is a loopback address") {
		t.Errorf("localhost: Deliver = %+v, want refused as loopback", a)
	}

	a = local(webhooks.ClientOptions{}).Deliver(context.Background(), delivery(t, "http://127.0.0.1:"+port+"/"))
	if a.Err != nil || a.StatusCode != http.StatusOK {
		t.Fatalf("with private addresses allowed: Deliver = %+v, want 200", a)
	}
	// The allowed delivery's connection queued behind any refused one that got through.
	if n := ln.accepted.Load(); n != 1 {
		t.Errorf("the receiver accepted %d connections, want 1 (the allowed delivery's)", n)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
