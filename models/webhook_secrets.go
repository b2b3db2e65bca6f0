package models

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/petstore/petstore/models/secretbox"
	"gorm.io/gorm"
)

// SigningSecrets opens the secrets that sign a delivery to e at now: the only place a stored
// secret is decrypted but to be encrypted again under a new key. A secret sealed under a key other than the first, or left in the clear by an
// instance of an earlier release, is sealed again under the first key (e's row too, unless it
// changed meanwhile). One that does not open (altered, or under a key no longer configured) is an
// error: the delivery is not signed with anything else.
func (s *WebhookStore) SigningSecrets(ctx context.Context, e *WebhookEndpoint, now time.Time) ([]string, error) {
	sealed := e.sealedSecrets(now)
	plain := make([]string, len(sealed))
	for i, v := range sealed {
		p, err := openSecret(s.opt.Keys, v)
		if err != nil {
			return nil, fmt.Errorf("webhook endpoint %d: %w", e.ID, err)
		}
		plain[i] = p
	}
	if s.opt.Keys.Stale(e.Secret) || e.PreviousSecret != "" && s.opt.Keys.Stale(e.PreviousSecret) {
		// Best effort: a failure leaves the row as it was, for the next delivery or start to reseal.
		_, _ = reseal(s.db.WithContext(ctx), s.opt.Keys, e.ID, e.Secret, e.PreviousSecret)
	}
	return plain, nil
}

// openSecret opens a stored secret; a clear one (stored by release 1.1) is taken as it is, if it
// has a signing secret's form.
func openSecret(keys *secretbox.Keyring, v string) (string, error) {
	p, err := keys.Open(v)
	if errors.Is(err, secretbox.ErrNotSealed) && strings.HasPrefix(v, "whsec_") {
		return v, nil
	}
	return p, err
}

// resealOne returns v sealed under the first key: v itself when it already is, or is empty.
func resealOne(keys *secretbox.Keyring, v string) (string, error) {
	if v == "" || !keys.Stale(v) {
		return v, nil
	}
	p, err := openSecret(keys, v)
	if err != nil {
		return "", err
	}
	return keys.Seal(p)
}

// reseal seals an endpoint's secrets under the first key, provided the row still holds secret
// and previous: a rotation meanwhile wins. It reports whether the row changed.
func reseal(db *gorm.DB, keys *secretbox.Keyring, id int64, secret, previous string) (bool, error) {
	newSecret, err := resealOne(keys, secret)
	if err != nil {
		return false, err
	}
	newPrevious, err := resealOne(keys, previous)
	if err != nil {
		return false, err
	}
	if newSecret == secret && newPrevious == previous {
		return false, nil
	}
	res := db.Model(&WebhookEndpoint{}).Unscoped().
		Where("id = ? AND secret = ? AND previous_secret = ?", id, secret, previous).
		UpdateColumns(map[string]any{"secret": newSecret, "previous_secret": newPrevious})
	return res.RowsAffected > 0, res.Error
}

// SecretsSealed says what SealWebhookSecrets did.
type SecretsSealed struct {
	// Clear counts the endpoints whose secrets were stored in the clear (release 1.1) and are
	// now sealed; Resealed those sealed under another key than the first.
	Clear, Resealed int
	// Wiped counts the deleted endpoints that still held secrets (deleted under release 1.1).
	Wiped int
	// UnknownKeys lists, by key id, the endpoints whose secrets are sealed under a key the
	// keyring lacks: configure it again (after the first) until they are resealed.
	UnknownKeys map[string][]int64
	// Altered lists the endpoints whose secrets do not authenticate: their deliveries fail until
	// the client rotates the secret.
	Altered []int64
}

// SealWebhookSecrets makes the stored webhook secrets what this release keeps: every secret of a
// live endpoint sealed under keys' first key, none on a deleted endpoint. Run at every start and by
// the migrate command after Migrate: it upgrades a database of release 1.1, which kept them in the
// clear, and completes a key rotation. Safe beside running instances: a row changed meanwhile
// is left as they wrote it.
func SealWebhookSecrets(ctx context.Context, db *gorm.DB, keys *secretbox.Keyring) (SecretsSealed, error) {
	var out SecretsSealed
	db = db.WithContext(ctx)
	var rows []struct {
		ID                     int64
		Secret, PreviousSecret string
		DeletedAt              gorm.DeletedAt
	}
	// A key id may hold "_", which LIKE takes for any character.
	current := "enc:v1:" + strings.ReplaceAll(keys.Current(), "_", `\_`) + ":%"
	// Only the rows with something to do; they are few (at most MaxEndpointsPerClient a client).
	err := db.Model(&WebhookEndpoint{}).Unscoped().Select("id, secret, previous_secret, deleted_at").
		Where(`secret NOT LIKE ? ESCAPE '\' OR (previous_secret <> '' AND previous_secret NOT LIKE ? ESCAPE '\') OR (deleted_at IS NOT NULL AND (secret <> '' OR previous_secret <> ''))`,
			current, current).
		Order("id").Scan(&rows).Error
	if err != nil {
		return out, storeError(err, "")
	}
	for _, r := range rows {
		if r.DeletedAt.Valid {
			if r.Secret == "" && r.PreviousSecret == "" {
				continue
			}
			res := db.Model(&WebhookEndpoint{}).Unscoped().Where("id = ?", r.ID).
				UpdateColumns(map[string]any{"secret": "", "previous_secret": "", "previous_secret_until": nil})
			if res.Error != nil {
				return out, storeError(res.Error, "")
			}
			out.Wiped++
			continue
		}
		if r.Secret == "" && r.PreviousSecret == "" {
			continue
		}
		changed, err := reseal(db, keys, r.ID, r.Secret, r.PreviousSecret)
		var unknown *secretbox.UnknownKeyError
		switch {
		case errors.As(err, &unknown):
			if out.UnknownKeys == nil {
				out.UnknownKeys = map[string][]int64{}
			}
			out.UnknownKeys[unknown.ID] = append(out.UnknownKeys[unknown.ID], r.ID)
		case errors.Is(err, secretbox.ErrTampered) || errors.Is(err, secretbox.ErrNotSealed):
			out.Altered = append(out.Altered, r.ID)
		case err != nil:
			return out, storeError(err, "")
		case !changed:
		case secretbox.Sealed(r.Secret) && (r.PreviousSecret == "" || secretbox.Sealed(r.PreviousSecret)):
			out.Resealed++
		default:
			out.Clear++
		}
	}
	return out, nil
}
