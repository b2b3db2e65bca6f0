package app

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"

	"github.com/petstore/petstore/models"
	"gorm.io/gorm"
)

// warnDevelopmentKey is the line serve logs at start-up while secrets are sealed under the
// development key.
const warnDevelopmentKey = "PETSTORE_WEBHOOK_SECRET_KEYS is not set: webhook signing secrets are encrypted under the development key, which is public; set PETSTORE_ENV=production and a key from `openssl rand -base64 32` before real use"

// sealWebhookSecrets seals the webhook secrets a database of an earlier release or key keeps
// (models.SealWebhookSecrets) and logs what it did. Secrets under a key no longer configured stop
// the start: the configuration lost a key it still needs.
func sealWebhookSecrets(ctx context.Context, cfg Config, log *slog.Logger, db *gorm.DB) (models.SecretsSealed, error) {
	done, err := models.SealWebhookSecrets(ctx, db, cfg.WebhookSecretKeys)
	if err != nil {
		return done, fmt.Errorf("seal webhook secrets: %w", err)
	}
	if len(done.UnknownKeys) > 0 {
		var missing []string
		for _, id := range slices.Sorted(maps.Keys(done.UnknownKeys)) {
			missing = append(missing, fmt.Sprintf("%q (endpoints %s)", id, joinIDs(done.UnknownKeys[id])))
		}
		return done, fmt.Errorf("PETSTORE_WEBHOOK_SECRET_KEYS: webhook secrets are sealed under the keys %s, which it does not list: "+
			"list them again after the first key until every secret is resealed under it", strings.Join(missing, ", "))
	}
	if len(done.Altered) > 0 {
		log.Error("webhook signing secrets that do not decrypt (altered): these endpoints get no delivery until their client rotates the secret",
			"endpoints", joinIDs(done.Altered))
	}
	if done.Clear > 0 || done.Resealed > 0 || done.Wiped > 0 {
		log.Info("webhook signing secrets sealed", "key", cfg.WebhookSecretKeys.Current(),
			"fromClear", done.Clear, "resealed", done.Resealed, "wipedDeleted", done.Wiped)
	}
	return done, nil
}

func joinIDs(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	return strings.Join(s, ", ")
}
