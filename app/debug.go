package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof" // #nosec G108 -- its handlers are mounted on debugMux alone, served only on PETSTORE_DEBUG_ADDR; http.DefaultServeMux, where its init registers them too, is never served
	"time"
)

// debugMux serves Go's profiles (net/http/pprof) under /debug/pprof/, and nothing else.
func debugMux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	return mux
}

// serveDebug serves the profiles on a listener of its own at addr (PETSTORE_DEBUG_ADDR, which
// LoadConfig puts on the loopback interface unless it names a host), never on the public one,
// and returns the function that stops it. A failure of the listener goes to errc.
func serveDebug(addr string, log *slog.Logger, errc chan<- error) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("PETSTORE_DEBUG_ADDR: %w", err)
	}
	// No write timeout: a CPU profile or a trace takes as long as its ?seconds= asks.
	srv := &http.Server{Handler: debugMux(), ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			errc <- fmt.Errorf("debug listener: %w", err)
		}
	}()
	log.Warn("debug listener serving profiles", "addr", ln.Addr().String(), "path", "/debug/pprof/")
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}, nil
}
