package app_test

import (
	"net"
	"net/url"
	"strings"
	"testing"

	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
)

func TestHealthcheckExitsZeroWhileTheServiceAnswers(t *testing.T) {
	t.Parallel()
	s := apptest.New(t, apptest.Config(t, testenv.SQLite))
	u, _ := url.Parse(s.URL)
	_, port, _ := net.SplitHostPort(u.Host)

	// ":port" is how the image configures it: every interface, dialled through the loopback.
	for _, addr := range []string{u.Host, ":" + port, "0.0.0.0:" + port} {
		out, stderr, err := run(t, map[string]string{"PETSTORE_ADDR": addr}, "healthcheck")
		if err != nil || !strings.Contains(out, `"ok"`) {
			t.Fatalf("healthcheck on %s: %v, stdout %q\n%s", addr, err, out, stderr)
		}
	}
	out, _, err := run(t, map[string]string{"PETSTORE_ADDR": u.Host}, "healthcheck", "-ready")
	if err != nil || !strings.Contains(out, `"database":"ok"`) {
		t.Fatalf("healthcheck -ready: %v, stdout %q", err, out)
	}
	if stdout, _, err := run(t, nil, "healthcheck", "--help"); err != nil || !strings.Contains(stdout, "-ready") {
		t.Fatalf("healthcheck --help: %v\n%s", err, stdout)
	}
}

func TestHealthcheckFailsWhenTheDatabaseIsGoneOrNothingListens(t *testing.T) {
	t.Parallel()
	s := apptest.New(t, apptest.Config(t, testenv.SQLite))
	u, _ := url.Parse(s.URL)
	env := map[string]string{"PETSTORE_ADDR": u.Host}
	sqlDB, err := s.DB.DB()
	if err != nil {
		t.Fatal(err)
	}
	sqlDB.Close()

	// Alive but not ready: /healthz still answers, /readyz does not.
	if _, _, err := run(t, env, "healthcheck"); err != nil {
		t.Fatalf("healthcheck with the database closed: %v, want success (the process is alive)", err)
	}
	_, _, err = run(t, env, "healthcheck", "-ready")
	if err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("healthcheck -ready with the database closed: %v, want an error naming 503", err)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	free := ln.Addr().String()
	ln.Close()
	if _, _, err := run(t, map[string]string{"PETSTORE_ADDR": free}, "healthcheck", "-timeout", "2s"); err == nil {
		t.Fatalf("healthcheck on %s where nothing listens succeeded", free)
	}
}
