package app_test

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/petstore/petstore/app"
	"github.com/petstore/petstore/app/apptest"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
	"github.com/petstore/petstore/models/secretbox"
)

// secretKeys returns PETSTORE_WEBHOOK_SECRET_KEYS naming a fresh random key for each id.
func secretKeys(ids ...string) map[string]string {
	out := map[string]string{}
	for _, id := range ids {
		b := make([]byte, secretbox.KeySize)
		_, _ = rand.Read(b)
		out[id] = id + ":" + base64.StdEncoding.EncodeToString(b)
	}
	return out
}

// keyring parses the keys given, the first sealing.
func keyring(t *testing.T, keys ...string) *secretbox.Keyring {
	t.Helper()
	r, err := secretbox.Parse(strings.Join(keys, ","))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// storedSecrets reads an endpoint's secret columns as the database holds them.
func storedSecrets(t *testing.T, s *apptest.Server, id int64) (secret, previous string) {
	t.Helper()
	var row struct{ Secret, PreviousSecret string }
	if err := s.DB.Raw("SELECT secret, previous_secret FROM webhook_endpoints WHERE id = ?", id).Scan(&row).Error; err != nil {
		t.Fatal(err)
	}
	return row.Secret, row.PreviousSecret
}

// holdsNoClear fails the test when a stored value holds a clear secret, whole or its key part.
func holdsNoClear(t *testing.T, stored string, clear ...string) {
	t.Helper()
	for _, c := range clear {
		if strings.Contains(stored, c) || strings.Contains(stored, strings.TrimPrefix(c, "whsec_")) {
			t.Fatalf("the database holds the clear secret: %q", stored)
		}
	}
}

// petstoreCommand runs the binary with args on env alone (and PATH); it returns what it wrote
// and its exit code.
func petstoreCommand(t *testing.T, env map[string]string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(apptest.Binary(t), args...) // #nosec G204 -- the binary the test just built
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "PETSTORE_ADDR=127.0.0.1:0"}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("petstore %v still running after 60 s:\n%s", args, out.String())
	}
	return out.String(), cmd.ProcessState.ExitCode()
}

// databaseEnv selects cfg's database for the binary.
func databaseEnv(cfg app.Config) map[string]string {
	if cfg.DatabaseURL != "" {
		return map[string]string{"DATABASE_URL": cfg.DatabaseURL}
	}
	return map[string]string{"PETSTORE_DB_PATH": cfg.DBPath}
}

// The secret the API gives a client is stored sealed under the configured key, the previous one
// too after a rotation, and the deliveries verify with the secrets the client was given.
func TestWebhookSecretsAreEncryptedAtRestAndDeliveriesVerifyWithTheClientsSecret(t *testing.T) {
	t.Parallel() // its own servers and receivers
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		cfg := webhookConfig(t, store)
		cfg.WebhookSecretKeys = keyring(t, secretKeys("k1")["k1"])
		s := apptest.New(t, cfg, apptest.WithDeliveries())
		r := apptest.NewReceiver(t)
		ep := addEndpoint(t, s, r.URL+"/hook", "pet.created")
		secret, previous := storedSecrets(t, s, ep.ID)
		if !strings.HasPrefix(secret, "enc:v1:k1:") || previous != "" {
			t.Fatalf("the endpoint's row holds %q and %q, want the secret sealed under k1", secret, previous)
		}
		holdsNoClear(t, secret, ep.Secret)
		createPetNamed(t, s, "Rex")
		verified(t, r.Wait(t, 1, 20*time.Second)[0], ep.Secret)

		var rotated endpoint
		res := s.Do(t, s.NewRequest(t, http.MethodPost, "/v1/webhook-endpoints/"+itoa(ep.ID)+"/rotate-secret", nil))
		if res.StatusCode != http.StatusOK {
			t.Fatalf("rotate-secret: %d %s", res.StatusCode, res.Body)
		}
		res.JSON(t, &rotated)
		secret, previous = storedSecrets(t, s, ep.ID)
		if !strings.HasPrefix(secret, "enc:v1:k1:") || !strings.HasPrefix(previous, "enc:v1:k1:") {
			t.Fatalf("after the rotation the row holds %q and %q, want both sealed under k1", secret, previous)
		}
		holdsNoClear(t, secret+previous, ep.Secret, rotated.Secret)
		createPetNamed(t, s, "Fido")
		d := r.Wait(t, 2, 20*time.Second)[1]
		verified(t, d, rotated.Secret)
		verified(t, d, ep.Secret) // the old secret signs beside the new one for a day

		var listed []endpoint
		s.Get(t, "/v1/webhook-endpoints").JSON(t, &listed)
		if len(listed) != 1 || listed[0].Secret != "" {
			t.Fatalf("the list answers %+v, want the endpoint without its secret", listed)
		}
	})
}

// After a key rotation (PETSTORE_WEBHOOK_SECRET_KEYS=new,old) a secret sealed under the old key
// still signs deliveries that verify, and is sealed again under the new key as it is read.
func TestAfterAKeyRotationTheOldKeysSecretsStillSignAndAreResealedUnderTheNewKey(t *testing.T) {
	t.Parallel() // its own servers and receivers
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		keys := secretKeys("old", "new")
		cfg := webhookConfig(t, store)
		cfg.WebhookSecretKeys = keyring(t, keys["old"])
		before := apptest.New(t, cfg) // no deliveries: only the server after the rotation sends
		r := apptest.NewReceiver(t)
		ep := addEndpoint(t, before, r.URL+"/hook", "pet.created")
		if secret, _ := storedSecrets(t, before, ep.ID); !strings.HasPrefix(secret, "enc:v1:old:") {
			t.Fatalf("the row holds %q, want it sealed under old", secret)
		}

		cfg.WebhookSecretKeys = keyring(t, keys["new"], keys["old"])
		after := apptest.New(t, cfg, apptest.WithDeliveries())
		createPetNamed(t, after, "Rex")
		verified(t, r.Wait(t, 1, 20*time.Second)[0], ep.Secret)
		deadline := time.Now().Add(10 * time.Second)
		secret, _ := storedSecrets(t, after, ep.ID)
		for !strings.HasPrefix(secret, "enc:v1:new:") && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
			secret, _ = storedSecrets(t, after, ep.ID)
		}
		if !strings.HasPrefix(secret, "enc:v1:new:") {
			t.Fatalf("after the delivery the row holds %q, want it sealed again under new", secret)
		}
		holdsNoClear(t, secret, ep.Secret)
		createPetNamed(t, after, "Fido")
		verified(t, r.Wait(t, 2, 20*time.Second)[1], ep.Secret)
	})
}

// An altered ciphertext is not opened into some other secret: nothing is sent, and the attempt
// says the secret could not be decrypted.
func TestATamperedSecretIsAnErrorNotAWrongSignature(t *testing.T) {
	t.Parallel() // its own servers and receivers
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		s := webhookServer(t, store)
		r := apptest.NewReceiver(t)
		ep := addEndpoint(t, s, r.URL+"/hook", "pet.created")
		secret, _ := storedSecrets(t, s, ep.ID)
		// One bit of the ciphertext's last byte flipped, still valid base64.
		i := len(secret) - 3
		flipped := secret[:i] + string(secret[i]^1) + secret[i+1:]
		if err := s.DB.Exec("UPDATE webhook_endpoints SET secret = ? WHERE id = ?", flipped, ep.ID).Error; err != nil {
			t.Fatal(err)
		}
		createPetNamed(t, s, "Rex")
		a := waitAttempt(t, s, ep.ID)
		if a.Outcome != models.OutcomeRetrying || !strings.Contains(a.Error, "signing secret could not be decrypted") || a.StatusCode != 0 {
			t.Fatalf("attempt %s %d %q, want a retry that says the secret could not be decrypted", a.Outcome, a.StatusCode, a.Error)
		}
		if got := r.Deliveries(); len(got) != 0 {
			t.Fatalf("the receiver got %d deliveries signed with a tampered secret", len(got))
		}
	})
}

// A database of release 1.1 keeps secrets in the clear (in a column of 100 characters on
// PostgreSQL) and on deleted endpoints: migrate seals the live ones, wipes the deleted ones' and
// widens the column; the deliveries then verify with the secret the client had.
func TestMigrateEncryptsTheClearSecretsOfARelease11Database(t *testing.T) {
	t.Parallel() // its own servers, receivers and processes
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		keys := secretKeys("k1")
		cfg := webhookConfig(t, store)
		s := apptest.New(t, cfg)
		r := apptest.NewReceiver(t)
		live := addEndpoint(t, s, r.URL+"/hook", "pet.created")
		gone := addEndpoint(t, s, r.URL+"/gone", "pet.created")
		// As release 1.1 left them: both secrets clear, the deleted endpoint's kept.
		for _, ep := range []endpoint{live, gone} {
			if err := s.DB.Exec("UPDATE webhook_endpoints SET secret = ? WHERE id = ?", ep.Secret, ep.ID).Error; err != nil {
				t.Fatal(err)
			}
		}
		if err := s.DB.Exec("UPDATE webhook_endpoints SET deleted_at = CURRENT_TIMESTAMP WHERE id = ?", gone.ID).Error; err != nil {
			t.Fatal(err)
		}
		if store == testenv.Postgres {
			if err := s.DB.Exec("ALTER TABLE webhook_endpoints ALTER COLUMN secret TYPE varchar(100), ALTER COLUMN previous_secret TYPE varchar(100)").Error; err != nil {
				t.Fatal(err)
			}
		}

		env := databaseEnv(cfg)
		env["PETSTORE_WEBHOOK_SECRET_KEYS"] = keys["k1"]
		out, code := petstoreCommand(t, env, "migrate")
		if code != 0 || !strings.Contains(out, "encrypted the webhook signing secrets of 1 endpoints, kept in the clear by release 1.1") ||
			!strings.Contains(out, "wiped the webhook signing secrets of 1 deleted endpoints") {
			t.Fatalf("petstore migrate exited %d:\n%s", code, out)
		}
		secret, _ := storedSecrets(t, s, live.ID)
		if !strings.HasPrefix(secret, "enc:v1:k1:") {
			t.Fatalf("after migrate the live endpoint's row holds %q, want it sealed under k1", secret)
		}
		if secret, previous := storedSecrets(t, s, gone.ID); secret != "" || previous != "" {
			t.Fatalf("after migrate the deleted endpoint's row holds %q and %q, want nothing", secret, previous)
		}
		if out, code := petstoreCommand(t, env, "migrate"); code != 0 || !strings.Contains(out, "the schema is up to date: nothing to do") {
			t.Fatalf("petstore migrate again exited %d, want nothing to do:\n%s", code, out)
		}

		cfg.WebhookSecretKeys = keyring(t, keys["k1"])
		after := apptest.New(t, cfg, apptest.WithDeliveries())
		createPetNamed(t, after, "Rex")
		verified(t, r.Wait(t, 1, 20*time.Second)[0], live.Secret)
	})
}

// In development the service starts without a key and warns; in production it does not start without a key, nor with a malformed one, nor without
// a key the stored secrets are sealed under; each message names the variable and what to do.
func TestProductionRefusesToStartWithoutTheWebhookSecretKey(t *testing.T) {
	t.Parallel() // its own processes
	testenv.ForEachStore(t, func(t *testing.T, store testenv.Store) {
		keys := secretKeys("k1", "k2")
		cfg := webhookConfig(t, store)
		cfg.WebhookSecretKeys = keyring(t, keys["k1"])
		s := apptest.New(t, cfg)
		// In development it starts on the development key, and says so once.
		dev := apptest.StartProcess(t, apptest.Binary(t), databaseEnv(cfg))
		if n := strings.Count(dev.Logs.String(), "encrypted under the development key, which is public"); n != 1 {
			t.Fatalf("development logged the development key's warning %d times, want once:\n%s", n, dev.Logs)
		}
		dev.Kill(t)

		ep := addEndpoint(t, s, "http://127.0.0.1:9/hook", "pet.created")

		env := databaseEnv(cfg)
		env["PETSTORE_ENV"] = "production"
		for _, c := range []struct{ keys, want string }{
			{"", "PETSTORE_WEBHOOK_SECRET_KEYS: must be set when PETSTORE_ENV=production: it encrypts webhook signing secrets at rest. Generate a key with `openssl rand -base64 32`"},
			{"k1:c2hvcnQ=", `PETSTORE_WEBHOOK_SECRET_KEYS: key "k1": must be 32 bytes, got 5`},
			{keys["k2"], `PETSTORE_WEBHOOK_SECRET_KEYS: webhook secrets are sealed under the keys "k1" (endpoints ` + itoa(ep.ID) + `), which it does not list`},
		} {
			env["PETSTORE_WEBHOOK_SECRET_KEYS"] = c.keys
			out, code := petstoreCommand(t, env, "serve")
			if code == 0 || !strings.Contains(out, c.want) || strings.Contains(out, `"listening"`) {
				t.Errorf("with PETSTORE_WEBHOOK_SECRET_KEYS=%q serve exited %d, want a refusal saying %q:\n%s", c.keys, code, c.want, out)
			}
		}
		// With the key it was sealed under second, it starts, and the secret is sealed under the first.
		env["PETSTORE_WEBHOOK_SECRET_KEYS"] = keys["k2"] + "," + keys["k1"]
		p := apptest.StartProcess(t, apptest.Binary(t), env)
		if p.Contains("development key") {
			t.Fatalf("production warned of the development key:\n%s", p.Logs)
		}
		if secret, _ := storedSecrets(t, s, ep.ID); !strings.HasPrefix(secret, "enc:v1:k2:") {
			t.Fatalf("after a start with k2 first the row holds %q, want it sealed under k2", secret)
		}
	})
}
