package app

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// healthcheckCommand lets a container check the service with the binary itself: the final image
// has no shell, curl or wget.
var healthcheckCommand = command{
	summary:     "ask the service on PETSTORE_ADDR whether it is healthy; exit 0 if so, else 1",
	needsConfig: true,
	flags: func(fs *flag.FlagSet, e *env) func() error {
		ready := fs.Bool("ready", false, "check /readyz (the database answers) instead of /healthz (the process answers)")
		timeout := fs.Duration("timeout", 3*time.Second, "how long to wait for the answer")
		return func() error {
			if err := noArgs(fs); err != nil {
				return err
			}
			path := "/healthz"
			if *ready {
				path = "/readyz"
			}
			target := "http://" + dialAddr(e.cfg.Addr) + path
			client := &http.Client{Timeout: *timeout}
			res, err := client.Get(target)
			if err != nil {
				return fmt.Errorf("unhealthy: %w", err)
			}
			defer res.Body.Close()
			// The body (the readiness report) lands in `docker inspect`'s health log.
			body, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
			if res.StatusCode != http.StatusOK {
				return fmt.Errorf("unhealthy: %s answered %d: %s", target, res.StatusCode, strings.TrimSpace(string(body)))
			}
			fmt.Fprintln(e.stdout, strings.TrimSpace(string(body)))
			return nil
		}
	},
}

// dialAddr turns a listen address into one to dial: a listener on every interface (":8080",
// "0.0.0.0:8080", "[::]:8080") is reached through the loopback.
func dialAddr(listen string) string {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return listen
	}
	if host == "" {
		return net.JoinHostPort("127.0.0.1", port)
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		if ip.To4() == nil {
			return net.JoinHostPort("::1", port)
		}
		return net.JoinHostPort("127.0.0.1", port)
	}
	return listen
}
