package deploycheck

import (
	"context"
	"net"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
)

// loadCompose loads compose.yaml as `docker compose` does: schema validation, interpolation
// (with an empty environment, so the defaults are what is checked), and consistency checks
// (every depends_on, volume and network names something defined).
func loadCompose(t *testing.T) *types.Project {
	t.Helper()
	opts, err := cli.NewProjectOptions([]string{repoRoot + "/compose.yaml"},
		cli.WithWorkingDirectory(repoRoot), cli.WithEnv(nil), cli.WithConsistency(true))
	if err != nil {
		t.Fatal(err)
	}
	p, err := opts.LoadProject(context.Background())
	if err != nil {
		t.Fatalf("docker compose would refuse compose.yaml: %v", err)
	}
	return p
}

func TestComposeRunsTheServiceOnPostgresAndRedisWithHealthChecks(t *testing.T) {
	p := loadCompose(t)
	if names := p.ServiceNames(); !slices.Equal(sorted(names), []string{"petstore", "postgres", "redis"}) {
		t.Fatalf("services %v, want petstore, postgres and redis", names)
	}
	for name, s := range p.Services {
		if s.HealthCheck == nil || s.HealthCheck.Disable || len(s.HealthCheck.Test) < 2 {
			t.Errorf("%s: no health check", name)
		}
		if s.Restart == "" || s.Restart == "no" {
			t.Errorf("%s: restart %q; a production-like stack restarts what fails", name, s.Restart)
		}
	}

	app := p.Services["petstore"]
	if app.Build == nil || app.Build.Context != repoRoot && app.Build.Context != absRepoRoot(t) {
		t.Errorf("petstore builds from %+v, want the repository's Dockerfile", app.Build)
	}
	if hc := app.HealthCheck.Test; !slices.Equal(hc, types.HealthCheckTest{"CMD", "/petstore", "healthcheck", "-ready"}) {
		t.Errorf("petstore health check %q: want the binary's own check in exec form (the image has no shell)", hc)
	}
	for _, dep := range []string{"postgres", "redis"} {
		if d, ok := app.DependsOn[dep]; !ok || d.Condition != types.ServiceConditionHealthy {
			t.Errorf("petstore depends_on %s: %+v, want condition service_healthy", dep, d)
		}
	}
	env := func(k string) string {
		if v := app.Environment[k]; v != nil {
			return *v
		}
		return ""
	}
	if u, err := url.Parse(env("DATABASE_URL")); err != nil || u.Hostname() != "postgres" || u.Path != "/petstore" {
		t.Errorf("DATABASE_URL %q: want the postgres service's petstore database", env("DATABASE_URL"))
	}
	if u, err := url.Parse(env("REDIS_URL")); err != nil || u.Hostname() != "redis" {
		t.Errorf("REDIS_URL %q: want the redis service", env("REDIS_URL"))
	}
	_, metricsPort, _ := net.SplitHostPort(env("PETSTORE_METRICS_ADDR"))
	for _, port := range app.Ports {
		if metricsPort != "" && strconv.Itoa(int(port.Target)) == metricsPort && port.HostIP != "127.0.0.1" {
			t.Errorf("metrics port %d published on %q: keep it on the host's loopback", port.Target, port.HostIP)
		}
	}
	if app.StopGracePeriod == nil || time.Duration(*app.StopGracePeriod) <= 15*time.Second {
		t.Errorf("petstore stop_grace_period %v: must exceed PETSTORE_SHUTDOWN_TIMEOUT (15s), or requests are cut", app.StopGracePeriod)
	}

	pg := p.Services["postgres"]
	if !mounts(pg, "pgdata", "/var/lib/postgresql/data") {
		t.Errorf("postgres keeps its data outside a named volume: %+v", pg.Volumes)
	}
	if _, ok := p.Volumes["pgdata"]; !ok {
		t.Error("volume pgdata is not declared")
	}
}

// Every variable compose.yaml gives the service is one the service reads (and the operations
// guide's configuration table lists).
func TestComposeSetsOnlyVariablesTheOperationsGuideDocuments(t *testing.T) {
	guide := string(readRepoFile(t, "docs/operations.md"))
	for k := range loadCompose(t).Services["petstore"].Environment {
		if !regexp.MustCompile("(?m)^\\| `" + regexp.QuoteMeta(k) + "` \\|").MatchString(guide) {
			t.Errorf("compose.yaml sets %s, which the configuration table of docs/operations.md does not list", k)
		}
	}
}

func mounts(s types.ServiceConfig, source, target string) bool {
	for _, v := range s.Volumes {
		if v.Type == types.VolumeTypeVolume && v.Source == source && v.Target == target {
			return true
		}
	}
	return false
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func absRepoRoot(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
