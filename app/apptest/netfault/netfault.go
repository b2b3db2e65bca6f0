// Package netfault stages network faults between a test's code and its database: a TCP proxy that
// can cut its connections or let nothing through.
package netfault

import (
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
)

// Proxy relays TCP connections to a backend (the test's PostgreSQL) and stages network faults
// between the service and it.
type Proxy struct {
	// Addr is the proxy's loopback address, host:port.
	Addr    string
	backend string
	ln      net.Listener

	mu    sync.Mutex
	state proxyState
	conns map[*proxyConn]struct{}
}

type proxyState int

const (
	proxyPass      proxyState = iota
	proxyCut                  // connections are closed, new ones closed on arrival
	proxyPartition            // connections stay open and nothing gets through
)

type proxyConn struct {
	client, server net.Conn
	frozen         bool
}

// NewProxy relays to backend (host:port) until the test ends.
func NewProxy(tb testing.TB, backend string) *Proxy {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p := &Proxy{Addr: ln.Addr().String(), backend: backend, ln: ln, conns: map[*proxyConn]struct{}{}}
	go p.accept()
	tb.Cleanup(func() {
		_ = ln.Close()
		p.closeAll()
	})
	return p
}

// ProxiedURL returns the database URL u with its host replaced by the proxy's, and the proxy.
func ProxiedURL(tb testing.TB, u string) (string, *Proxy) {
	tb.Helper()
	parsed, err := url.Parse(u)
	if err != nil {
		tb.Fatal(err)
	}
	p := NewProxy(tb, parsed.Host)
	parsed.Host = p.Addr
	return parsed.String(), p
}

// Cut closes every connection and closes new ones as they arrive, as when the database
// server goes away.
func (p *Proxy) Cut() { p.set(proxyCut) }

// Partition lets no byte through, in either direction, on open connections and on new ones,
// which are accepted and never answered: the network went silent, the failure that makes
// clients hang.
func (p *Proxy) Partition() { p.set(proxyPartition) }

// Heal lets connections through again. Connections that lived through a partition are closed,
// as their peers would have given up on them.
func (p *Proxy) Heal() { p.set(proxyPass) }

func (p *Proxy) set(s proxyState) {
	p.mu.Lock()
	p.state = s
	var doomed []*proxyConn
	for c := range p.conns {
		switch {
		case s == proxyCut, s == proxyPass && c.frozen:
			doomed = append(doomed, c)
			delete(p.conns, c)
		case s == proxyPartition:
			c.frozen = true
		}
	}
	p.mu.Unlock()
	for _, c := range doomed {
		c.close()
	}
}

func (p *Proxy) closeAll() {
	p.mu.Lock()
	conns := p.conns
	p.conns = map[*proxyConn]struct{}{}
	p.mu.Unlock()
	for c := range conns {
		c.close()
	}
}

func (c *proxyConn) close() {
	_ = c.client.Close()
	if c.server != nil {
		_ = c.server.Close()
	}
}

func (p *Proxy) accept() {
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.serve(client)
	}
}

func (p *Proxy) serve(client net.Conn) {
	p.mu.Lock()
	state := p.state
	p.mu.Unlock()
	c := &proxyConn{client: client}
	switch state {
	case proxyCut:
		_ = client.Close()
		return
	case proxyPartition:
		c.frozen = true
	default:
		server, err := net.Dial("tcp", p.backend)
		if err != nil {
			_ = client.Close()
			return
		}
		c.server = server
	}
	p.mu.Lock()
	if p.state != state { // the state changed while dialing: start over under the new one
		p.mu.Unlock()
		c.close()
		return
	}
	p.conns[c] = struct{}{}
	p.mu.Unlock()

	if c.server == nil {
		_, _ = io.Copy(io.Discard, client) // swallow everything until the client gives up
		p.drop(c)
		return
	}
	done := make(chan struct{}, 2)
	go func() { p.relay(c, c.server, c.client); done <- struct{}{} }()
	go func() { p.relay(c, c.client, c.server); done <- struct{}{} }()
	<-done
	p.drop(c)
	<-done
}

// relay copies src to dst, dropping what arrives while the connection is frozen.
func (p *Proxy) relay(c *proxyConn, dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			frozen := c.frozen
			p.mu.Unlock()
			if !frozen {
				if _, werr := dst.Write(buf[:n]); werr != nil {
					return
				}
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *Proxy) drop(c *proxyConn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	c.close()
}
