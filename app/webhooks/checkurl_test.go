package webhooks_test

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"github.com/petstore/petstore/app/webhooks"
	"github.com/petstore/petstore/models"
)

// resolver answers from a table (names in lower case), so no test asks DNS. An entry with several answers gives them
// in turn, the last one from then on: a name that changes its address, as in DNS rebinding.
type resolver struct {
	mu      sync.Mutex
	answers map[string][][]string
}

func (r *resolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	turns := r.answers[host]
	if len(turns) == 0 {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	answer := turns[0]
	if len(turns) > 1 {
		r.answers[host] = turns[1:]
	}
	var out []netip.Addr
	for _, a := range answer {
		out = append(out, netip.MustParseAddr(a))
	}
	return out, nil
}

func names() *resolver {
	return &resolver{answers: map[string][][]string{
		"hooks.example":     {{"93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"}},
		"private.example":   {{"10.1.2.3"}},
		"mixed.example":     {{"93.184.215.14", "192.168.1.20"}},
		"sixtofour.example": {{"2002:a00:5::1"}},
		"ula.example":       {{"fd00::1"}},
		"mapped.example":    {{"::ffff:127.0.0.1"}},
		"metadata.example":  {{"169.254.169.254"}},
		"cgnat.example":     {{"100.64.0.1"}},
		"loopback6.example": {{"::1"}},
	}}
}

func TestCheckURLAccepts(t *testing.T) {
	c := webhooks.NewClient(webhooks.ClientOptions{Resolver: names()})
	for _, u := range []string{
		"https://hooks.example/webhooks",
		"https://hooks.example:8443/in?token=abc#frag",
		"https://HOOKS.example./webhooks",
		"https://93.184.215.14/",
		"https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]:443/",
		"https://[::ffff:93.184.215.14]/",   // IPv4-mapped, of a public address
		"https://[64:ff9b::93.184.215.14]/", // NAT64 of a public address
		// The edges of the refused ranges.
		"https://9.255.255.255/", "https://11.0.0.0/", "https://100.63.255.255/", "https://100.128.0.0/",
		"https://126.255.255.255/", "https://128.0.0.0/", "https://169.253.255.255/", "https://169.255.0.0/",
		"https://172.15.255.255/", "https://172.32.0.0/", "https://192.167.255.255/", "https://192.169.0.0/",
		"https://223.255.255.255/", "https://192.0.1.255/", "https://192.0.3.0/", "https://192.88.100.0/",
		"https://[2000::1]/", "https://[2001:200::1]/", "https://[2001:db7:ffff::1]/", "https://[2001:db9::1]/",
		"https://[2001:ffff::1]/", "https://[2003::1]/", "https://[3fff:1000::1]/", "https://[3ffe:ffff::1]/",
		// The longest URL accepted.
		"https://hooks.example/" + strings.Repeat("p", webhooks.MaxURLLength-len("https://hooks.example/")),
	} {
		if err := c.CheckURL(context.Background(), u); err != nil {
			t.Errorf("CheckURL(%q) = %v, want nil", u, err)
		}
	}
}

func TestCheckURLRefuses(t *testing.T) {
	c := webhooks.NewClient(webhooks.ClientOptions{Resolver: names()})
	for _, tc := range []struct{ url, says string }{
		{"http://hooks.example/", "must use https"},
		{"ftp://hooks.example/", `got the scheme "ftp"`},
		{"hooks.example/webhooks", "must be an absolute URL"},
		{"/webhooks", "must be an absolute URL"},
		{"https:hooks.example", "must be an absolute URL"},
		{"", "must be an absolute URL"},
		{" https://hooks.example/", "must be an absolute URL"},
		{"https://user:pw@hooks.example/", "user name or password"},
		{"https://user@hooks.example/", "user name or password"},
		{"https:///webhooks", "must name a host"},
		{"https://:443/", "must name a host"},
		{"https://hooks.example:0/", "port from 1 to 65535"},
		{"https://hooks.example:65536/", "port from 1 to 65535"},
		{"https://hooks.example/" + strings.Repeat("p", webhooks.MaxURLLength), "at most 2048 characters"},
		{"https://exa_mple.com/", "host name of ASCII letters"},
		{"https://bücher.example/", "host name of ASCII letters"},
		{"https://-hooks.example/", "host name of ASCII letters"},
		{"https://hooks..example/", "host name of ASCII letters"},

		// IPv4 literals in every refused range.
		{"https://0.0.0.0/", "0.0.0.0 is the unspecified address"},
		{"https://0.1.2.3/", "“this network” address"},
		{"https://10.0.0.5/", "10.0.0.5 is a private address"},
		{"https://10.255.255.255/", "private address"},
		{"https://100.64.0.1/", "carrier-grade NAT"},
		{"https://100.127.255.255/", "carrier-grade NAT"},
		{"https://127.0.0.1/", "127.0.0.1 is a loopback address"},
		{"https://127.255.255.254:8080/", "loopback address"},
		{"https://169.254.169.254/latest/meta-data/", "link-local address"},
		{"https://172.16.0.1/", "private address"},
		{"https://172.31.255.255/", "private address"},
		{"https://192.0.0.8/", "IETF protocol address"},
		{"https://192.168.1.1/", "private address"},
		{"https://198.18.0.1/", "network-benchmarking address"},
		{"https://224.0.0.1/", "multicast address"},
		{"https://239.255.255.250/", "multicast address"},
		{"https://240.0.0.1/", "reserved address"},
		{"https://255.255.255.255/", "the broadcast address"},

		// IPv6 literals, and IPv4 addresses dressed as IPv6.
		{"https://[::]/", ":: is the unspecified address"},
		{"https://[::1]/", "::1 is a loopback address"},
		{"https://[0:0:0:0:0:0:0:1]:8443/", "loopback address"},
		{"https://[fe80::1]/", "link-local address"},
		{"https://[fe80::1%25eth0]/", "link-local address"},
		{"https://[fc00::1]/", "unique-local address"},
		{"https://[fd12:3456::1]/", "unique-local address"},
		{"https://[fec0::1]/", "site-local address"},
		{"https://[ff02::1]/", "multicast address"},
		{"https://[ff0e::1]/", "multicast address"},
		{"https://[::ffff:127.0.0.1]/", "loopback address"},
		{"https://[::ffff:7f00:1]/", "loopback address"},
		{"https://[::ffff:10.0.0.5]/", "private address"},
		{"https://[0:0:0:0:0:ffff:a9fe:a9fe]/", "link-local address"},
		{"https://[::ffff:0.0.0.0]/", "unspecified address"},
		{"https://[::127.0.0.1]/", "IPv4-compatible address"},
		{"https://[64:ff9b::10.0.0.5]/", "private address behind a NAT64 prefix"},
		{"https://[64:ff9b::7f00:1]/", "loopback address behind a NAT64 prefix"},
		{"https://[::ffff:0:7f00:1]/", "::ffff:0:7f00:1 is an IPv4-translated address carrying 127.0.0.1, a loopback address"},
		{"https://[::ffff:0:808:808]/", "::ffff:0:808:808 is an IPv4-translated address"},
		{"https://[64:ff9b:1:a9fe:a9:fe00::]/", "a local-use NAT64 address carrying 169.254.169.254, a link-local address"},
		{"https://[64:ff9b:1:808:8:800::]/", "a local-use NAT64 address"},
		{"https://[2002:7f00:1::]/", "2002:7f00:1:: is a 6to4 address carrying 127.0.0.1, a loopback address"},
		{"https://[2002:a9fe:a9fe::1]/", "a 6to4 address carrying 169.254.169.254, a link-local address"},
		{"https://[2002:808:808::1]/", "2002:808:808::1 is a 6to4 address"},
		// Teredo: the server's IPv4 address, then the client's, inverted.
		{"https://[2001:0:808:808::80ff:fffe]/", "a Teredo address carrying 127.0.0.1, a loopback address"},
		{"https://[2001:0:a00:1::f7f7:f7f7]/", "a Teredo address carrying 10.0.0.1, a private address"},
		{"https://[2001:0:808:808::f7f7:f7f7]/", "a Teredo address"},

		// The rest of IANA's special-purpose registries, and IPv6 outside global unicast.
		{"https://192.0.2.1/", "documentation address"},
		{"https://198.51.100.7/", "documentation address"},
		{"https://203.0.113.10/", "documentation address"},
		{"https://192.88.99.1/", "in the special-purpose range 192.88.99.0/24"},
		{"https://192.31.196.1/", "in the special-purpose range 192.31.196.0/24"},
		{"https://[2001:db8::10]/", "documentation address"},
		{"https://[3fff::1]/", "documentation address"},
		{"https://[2001:2::1]/", "in the special-purpose range 2001::/23"},
		{"https://[4000::1]/", "outside IPv6 global unicast (2000::/3)"},
		{"https://[fe00::1]/", "outside IPv6 global unicast"},
		{"https://[100::1]/", "outside IPv6 global unicast"},

		// Other spellings of 127.0.0.1 that some resolvers read as addresses.
		{"https://2130706433/", "host name of ASCII letters"},
		{"https://0x7f000001/", "host name of ASCII letters"},
		{"https://0x7f.0.0.1/", "host name of ASCII letters"},
		{"https://0X7F.1/", "host name of ASCII letters"},
		{"https://127.1/", "host name of ASCII letters"},
		{"https://0177.0.0.1/", "host name of ASCII letters"},
		{"https://017700000001/", "host name of ASCII letters"},
		{"https://127.0.0.01/", "host name of ASCII letters"},

		// Names, checked by every address they resolve to.
		{"https://private.example/", "private.example resolves to 10.1.2.3, a private address"},
		{"https://mixed.example/", "resolves to 192.168.1.20, a private address"},
		{"https://ula.example/", "unique-local address"},
		{"https://mapped.example/", "resolves to 127.0.0.1, a loopback address"},
		{"https://metadata.example/", "link-local address"},
		{"https://cgnat.example/", "carrier-grade NAT"},
		{"https://loopback6.example/", "loopback address"},
		{"https://sixtofour.example/", "resolves to 2002:a00:5::1, a 6to4 address carrying 10.0.0.5, a private address"},
		{"https://nowhere.example/", "nowhere.example does not resolve"},
	} {
		err := c.CheckURL(context.Background(), tc.url)
		var e *models.Error
		if !errors.As(err, &e) {
			t.Errorf("CheckURL(%q) = %v, want a *models.Error", tc.url, err)
			continue
		}
		if e.Code != models.EValidation || e.Field != "url" || !strings.HasPrefix(e.Message, "url: ") || !strings.Contains(e.Message, tc.says) {
			t.Errorf("CheckURL(%q) = {%s %s %q}, want {%s url %q}", tc.url, e.Code, e.Field, e.Message, models.EValidation, tc.says)
		}
	}
}

// "localhost" through the machine's own resolver (its hosts file, no DNS) is loopback.
func TestCheckURLRefusesLocalhost(t *testing.T) {
	err := webhooks.NewClient(webhooks.ClientOptions{}).CheckURL(context.Background(), "https://localhost:8443/hooks")
	if err == nil || !strings.Contains(err.Error(), "localhost resolves to") || !strings.Contains(err.Error(), "a loopback address") {
		t.Fatalf("CheckURL(localhost) = %v, want a refusal naming its loopback address", err)
	}
}

func TestCheckURLAllowances(t *testing.T) {
	ctx := context.Background()
	httpOK := webhooks.NewClient(webhooks.ClientOptions{AllowHTTP: true, Resolver: names()})
	if err := httpOK.CheckURL(ctx, "http://hooks.example/"); err != nil {
		t.Errorf("AllowHTTP: http refused: %v", err)
	}
	if err := httpOK.CheckURL(ctx, "http://10.0.0.5/"); err == nil {
		t.Error("AllowHTTP alone accepted a private address")
	}
	if err := httpOK.CheckURL(ctx, "ws://hooks.example/"); err == nil {
		t.Error("AllowHTTP accepted ws://")
	}
	private := webhooks.NewClient(webhooks.ClientOptions{AllowPrivate: true, Resolver: names()})
	for _, u := range []string{"https://127.0.0.1:8443/", "https://[::1]/", "https://private.example/", "https://localhost/"} {
		if err := private.CheckURL(ctx, u); err != nil {
			t.Errorf("AllowPrivate: CheckURL(%q) = %v", u, err)
		}
	}
	for _, u := range []string{"http://127.0.0.1/", "https://u:p@127.0.0.1/", "https://2130706433/"} {
		if err := private.CheckURL(ctx, u); err == nil {
			t.Errorf("AllowPrivate: CheckURL(%q) accepted", u)
		}
	}
}
