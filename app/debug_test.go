package app_test

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/petstore/petstore/app"
	"github.com/petstore/petstore/app/apptest"
)

func TestProfilesAreServedOnTheDebugListenerOnlyAndNeverOnThePublicPort(t *testing.T) {
	t.Parallel()
	addr, debugAddr := freeAddr(t), freeAddr(t)
	logs := startServe(t, map[string]string{
		"PETSTORE_ADDR":       addr,
		"PETSTORE_DEBUG_ADDR": debugAddr,
		"PETSTORE_DB_PATH":    t.TempDir() + "/p.db",
	})
	if !strings.Contains(logs.String(), `"msg":"debug listener serving profiles"`) {
		t.Fatalf("no debug listener in the log:\n%s", logs)
	}
	get := func(url string) (int, string) {
		t.Helper()
		res, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if code, body := get("http://" + debugAddr + "/debug/pprof/"); code != http.StatusOK || !strings.Contains(body, "goroutine") {
		t.Errorf("GET /debug/pprof/ on PETSTORE_DEBUG_ADDR: %d %.200s, want 200 and the profiles' index", code, body)
	}
	if code, body := get("http://" + debugAddr + "/debug/pprof/heap?debug=1"); code != http.StatusOK || !strings.Contains(body, "heap profile") {
		t.Errorf("GET /debug/pprof/heap on PETSTORE_DEBUG_ADDR: %d %.200s, want the heap profile", code, body)
	}
	if code, _ := get("http://" + debugAddr + "/v1/pets"); code != http.StatusNotFound {
		t.Errorf("the debug listener answered GET /v1/pets with %d, want 404: it serves profiles only", code)
	}
	public := &apptest.Server{URL: "http://" + addr}
	for _, path := range []string{"/debug/pprof/", "/debug/pprof/heap", "/debug/pprof/profile?seconds=1", "/debug/pprof/cmdline"} {
		if res := public.Get(t, path); res.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s on the public port answered %d, want 404", path, res.StatusCode)
		}
	}
}

func TestDebugListenerIsOffUnlessConfiguredAndOnLoopbackUnlessAHostIsNamed(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	logs := startServe(t, map[string]string{"PETSTORE_ADDR": addr, "PETSTORE_DB_PATH": t.TempDir() + "/p.db"})
	if strings.Contains(logs.String(), "debug listener") {
		t.Fatalf("a debug listener started without PETSTORE_DEBUG_ADDR:\n%s", logs)
	}

	cfg := func(env map[string]string) (app.Config, error) {
		return app.LoadConfig(func(k string) string { return env[k] })
	}
	for given, want := range map[string]string{":6060": "127.0.0.1:6060", "0.0.0.0:6060": "0.0.0.0:6060", "[::1]:6060": "[::1]:6060"} {
		c, err := cfg(map[string]string{"PETSTORE_DEBUG_ADDR": given})
		if err != nil || c.DebugAddr != want {
			t.Errorf("PETSTORE_DEBUG_ADDR=%q: %q, %v; want %q", given, c.DebugAddr, err, want)
		}
	}
	_, port, _ := net.SplitHostPort(addr)
	for _, env := range []map[string]string{
		{"PETSTORE_ADDR": addr, "PETSTORE_DEBUG_ADDR": ":" + port},
		{"PETSTORE_ADDR": addr, "PETSTORE_METRICS_ADDR": "127.0.0.1:9090", "PETSTORE_DEBUG_ADDR": ":9090"},
		{"PETSTORE_DEBUG_ADDR": "nonsense"},
	} {
		if _, err := cfg(env); err == nil || !strings.Contains(err.Error(), "PETSTORE_DEBUG_ADDR") {
			t.Errorf("%v: %v, want an error naming PETSTORE_DEBUG_ADDR", env, err)
		}
	}
}
