package apptest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// Cluster is a throwaway PostgreSQL server of the test's own, which the test may stop and
// start again: a real database outage, not a simulated one.
type Cluster struct {
	// URL reaches the cluster's postgres database as the postgres superuser.
	URL  string
	bin  string
	dir  string
	port int
	cred *syscall.Credential
}

// NewCluster creates and starts a cluster (initdb and pg_ctl from `pg_config --bindir`; about
// 3 s), stopped and removed when the test ends. Without PostgreSQL's server programs the test is
// skipped on a developer's machine and fails under CI.
func NewCluster(tb testing.TB) *Cluster {
	tb.Helper()
	out, err := exec.Command("pg_config", "--bindir").Output()
	bin := strings.TrimSpace(string(out))
	if err == nil {
		_, err = os.Stat(filepath.Join(bin, "initdb"))
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			tb.Fatalf("PostgreSQL's server programs are required under CI (pg_config --bindir, initdb): %v", err)
		}
		tb.Skipf("no PostgreSQL server programs (pg_config --bindir, initdb): %v", err)
	}
	dir, err := os.MkdirTemp("", "petstore-pg-")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = os.RemoveAll(dir) })
	c := &Cluster{bin: bin, dir: dir, port: freePort(tb)}
	// initdb refuses to run as root: run the server programs as the postgres user then.
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			tb.Fatalf("running as root needs a postgres user for initdb: %v", err)
		}
		uid, _ := strconv.ParseUint(u.Uid, 10, 32)
		gid, _ := strconv.ParseUint(u.Gid, 10, 32)
		c.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, int(uid), int(gid)); err != nil {
			tb.Fatal(err)
		}
	}
	c.run(tb, "initdb", "-D", c.data(), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync")
	c.URL = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", c.port)
	c.Start(tb)
	tb.Cleanup(func() { _ = c.pgctl("stop", "-m", "immediate") })
	return c
}

// Stop shuts the server down the way an operator does (pg_ctl stop -m fast): open sessions are
// terminated and new connections refused.
func (c *Cluster) Stop(tb testing.TB) {
	tb.Helper()
	if err := c.pgctl("stop", "-m", "fast"); err != nil {
		tb.Fatalf("pg_ctl stop: %v", err)
	}
}

// Start starts the server and waits until it accepts connections.
func (c *Cluster) Start(tb testing.TB) {
	tb.Helper()
	// fsync off: the cluster outlives no machine crash, only its own stops and starts.
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50", c.port, c.dir)
	if err := c.pgctl("start", "-w", "-t", "60", "-l", filepath.Join(c.dir, "server.log"), "-o", opts); err != nil {
		log, _ := os.ReadFile(filepath.Join(c.dir, "server.log"))
		tb.Fatalf("pg_ctl start: %v\n%s", err, log)
	}
}

func (c *Cluster) data() string { return filepath.Join(c.dir, "data") }

func (c *Cluster) pgctl(args ...string) error {
	_, err := c.command("pg_ctl", append([]string{"-D", c.data()}, args...)...).CombinedOutput()
	return err
}

func (c *Cluster) run(tb testing.TB, name string, args ...string) {
	tb.Helper()
	if out, err := c.command(name, args...).CombinedOutput(); err != nil {
		tb.Fatalf("%s: %v\n%s", name, err, out)
	}
}

func (c *Cluster) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(c.bin, name), args...) // #nosec G204 -- the test's own PostgreSQL programs
	cmd.Dir = c.dir
	if c.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	}
	return cmd
}

// freePort finds a loopback port nobody listens on.
func freePort(tb testing.TB) int {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
