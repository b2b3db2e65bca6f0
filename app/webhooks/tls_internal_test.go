package webhooks

import (
	"context"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
)

type oneName struct{ addr netip.Addr }

func (r oneName) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return []netip.Addr{r.addr}, nil
}

// The production scheme end to end: https to a host name, dialled by its resolved address while
// TLS checks the certificate against the name (httptest's certificate is for example.com).
func TestDeliverOverHTTPS(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes are expected
	srv.StartTLS()
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	secret, _ := NewSecret()
	send := func(c *Client, host string) Attempt {
		return c.Deliver(context.Background(), Delivery{URL: "https://" + host + ":" + port + "/hooks", MsgID: "evt_1", Body: []byte("{}"), Secrets: []string{secret}})
	}

	trusting := NewClient(ClientOptions{AllowPrivate: true, Resolver: oneName{netip.MustParseAddr("127.0.0.1")}})
	trusting.hc.Transport.(*http.Transport).TLSClientConfig.RootCAs = srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	if a := send(trusting, "example.com"); a.Err != nil || a.StatusCode != http.StatusOK {
		t.Errorf("a trusted certificate for the name: %+v, want 200", a)
	}
	if a := send(trusting, "hooks.example"); a.Err == nil || a.Err.Error() != "TLS certificate not valid for the URL's host" {
		t.Errorf("a certificate for another name: %+v, want refused as not valid for the host", a)
	}
	plain := NewClient(ClientOptions{AllowPrivate: true, Resolver: oneName{netip.MustParseAddr("127.0.0.1")}})
	if a := send(plain, "example.com"); a.Err == nil || a.Err.Error() != "TLS certificate not trusted: signed by an unknown authority" {
		t.Errorf("an untrusted certificate: %+v, want refused as not trusted", a)
	}
}
