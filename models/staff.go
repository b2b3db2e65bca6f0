package models

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/trustelem/zxcvbn"
	"golang.org/x/crypto/bcrypt"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Role is what a staff member may do in the admin pages.
type Role string

// The roles: staff manage pets and orders; admins also manage categories, API keys and staff.
const (
	RoleStaff Role = "staff"
	RoleAdmin Role = "admin"
)

// Roles lists every role, least powerful first.
var Roles = []Role{RoleStaff, RoleAdmin}

// ParseRole checks a role given by a user.
func ParseRole(field, s string) (Role, error) {
	for _, r := range Roles {
		if string(r) == s {
			return r, nil
		}
	}
	return "", FieldError(field, "must be staff or admin; got %s", strconv.Quote(s))
}

// Password limits: bcrypt reads at most 72 bytes, so a longer password would be silently cut.
const (
	MinPasswordLength = 12
	MaxPasswordBytes  = 72
)

// bcryptCost is bcrypt's default (about 50 ms a check on one core): slow for a guesser, quick
// enough for a person logging in.
const bcryptCost = bcrypt.DefaultCost

// Staff is a person who works in the admin pages.
type Staff struct {
	ID           int64  `gorm:"primaryKey"`
	Username     string `gorm:"size:64;not null;uniqueIndex"`
	PasswordHash string `gorm:"size:100;not null"`
	Role         Role   `gorm:"size:16;not null"`
	// DisabledAt is set while the account may not log in; its sessions end at their next request.
	DisabledAt *time.Time
	// MustChangePassword is set by an admin's reset: the account's one-time password opens only
	// the page that changes it.
	MustChangePassword bool `gorm:"not null;default:false"`
	// PasswordChangedAt is when the password last changed; sessions started before it end at
	// their next request.
	PasswordChangedAt *time.Time
	LastLoginAt       *time.Time
	CreatedAt         time.Time
	UpdatedAt         time.Time
}

// auditFields are what the audit log keeps of an account: never its password or its hash.
func (s *Staff) auditFields() Fields {
	return Fields{"username": s.Username, "role": s.Role, "disabled": !s.Active(),
		"mustChangePassword": s.MustChangePassword, "passwordChangedAt": s.PasswordChangedAt}
}

// Active reports whether the account may log in.
func (s *Staff) Active() bool { return s.DisabledAt == nil }

// IsAdmin reports whether the account has the admin role.
func (s *Staff) IsAdmin() bool { return s.Role == RoleAdmin }

// NewStaff is what an admin gives to add a staff account.
type NewStaff struct {
	Username string
	Password string
	Role     string
}

// validUsername normalises a username: trimmed, lower case, 2 to 64 of a-z 0-9 . _ -.
func validUsername(field, s string) (string, *Error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if n := utf8.RuneCountInString(s); n < 2 || n > 64 {
		return "", FieldError(field, "must have 2 to 64 characters")
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return "", FieldError(field, "may contain only letters a-z, digits and . _ -")
		}
	}
	return s, nil
}

// Password strength is zxcvbn's estimate (its lists of common and breached passwords, names,
// words, dates, repeats, sequences and keyboard patterns, shipped in the binary): a password
// must need at least 10^8 guesses (zxcvbn's score 3). The estimate reads the first
// passwordStrengthRunes characters: its cost grows steeply with length (2.4 s for 71 characters
// of l33t symbols, 45 ms for 32), and 32 characters that resist 10^8 guesses are strong whatever
// follows them.
const (
	minPasswordScore      = 3
	passwordStrengthRunes = 32
)

// ValidatePassword checks a new password for the account username: 12 characters to 72 bytes,
// not containing the username, and not easy to guess.
func ValidatePassword(field, password, username string) *Error {
	switch {
	case utf8.RuneCountInString(password) < MinPasswordLength:
		return FieldError(field, "must have at least %d characters", MinPasswordLength)
	case len(password) > MaxPasswordBytes:
		return FieldError(field, "must be at most %d bytes", MaxPasswordBytes)
	}
	// A name of two letters is inside too many words to refuse them; zxcvbn still counts it.
	name := strings.ToLower(strings.TrimSpace(username))
	if utf8.RuneCountInString(name) >= 3 && strings.Contains(strings.ToLower(password), name) {
		return FieldError(field, "must not contain the username")
	}
	head := password
	if r := []rune(password); len(r) > passwordStrengthRunes {
		head = string(r[:passwordStrengthRunes])
	}
	if zxcvbn.PasswordStrength(head, []string{name}).Score < minPasswordScore {
		return FieldError(field, "is too easy to guess: it is, or is made from, a common or breached password, "+
			"a word, a name, a date, a repeat or a keyboard pattern; a few unrelated words make a strong one")
	}
	return nil
}

// Validate checks every field and returns the account to store, without its password hash.
func (n NewStaff) Validate() (Staff, error) {
	var st Staff
	var errs fieldErrors
	name, err := validUsername("username", n.Username)
	errs.add(err)
	st.Username = name
	errs.add(ValidatePassword("password", n.Password, st.Username))
	role := n.Role
	if role == "" {
		role = string(RoleStaff)
	}
	r, rerr := ParseRole("role", role)
	if rerr != nil {
		errs.add(rerr.(*Error))
	}
	st.Role = r
	return st, errs.err()
}

// ErrBadLogin is the one answer to a failed login, whatever failed, so it tells a guesser
// nothing about which usernames exist.
var ErrBadLogin = &Error{Code: EValidation, Field: "password", Message: "Wrong username or password."}

// dummyHash is compared when the username is unknown, so an unknown name takes as long as a
// wrong password. It is made on first use, so commands that never log anyone in do not pay.
var dummyHash = sync.OnceValue(func() []byte {
	h, _ := bcrypt.GenerateFromPassword([]byte("not a password of anyone's"), bcryptCost)
	return h
})

// StaffStore reads and changes staff accounts.
type StaffStore struct {
	db   *gorm.DB
	cost int
}

// NewStaffStore returns a store on db that hashes passwords at bcrypt's default cost.
func NewStaffStore(db *gorm.DB) *StaffStore { return &StaffStore{db: db, cost: bcryptCost} }

// WithHashCost returns the store hashing new passwords at another bcrypt cost. A password is
// checked at the cost it was hashed with, so tests make accounts at bcrypt.MinCost and their
// logins stay quick on a busy machine.
func (s *StaffStore) WithHashCost(cost int) *StaffStore { return &StaffStore{db: s.db, cost: cost} }

// withHash validates n and hashes its password.
func (s *StaffStore) withHash(n NewStaff) (Staff, error) {
	st, err := n.Validate()
	if err != nil {
		return st, err
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(n.Password), s.cost)
	st.PasswordHash = string(hash)
	return st, err
}

// Create validates and stores a new account; a username already taken is a conflict.
func (s *StaffStore) Create(ctx context.Context, n NewStaff) (*Staff, error) {
	st, err := s.withHash(n)
	if err != nil {
		return nil, err
	}
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(&st).Error; err != nil {
			return err
		}
		return recordChange(tx, Change{Object: ObjectStaff, ID: st.ID, Name: st.Username, Action: AuditCreate, After: st.auditFields()})
	})
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		return nil, &Error{Code: EConflict, Field: "username",
			Message: "username: " + strconv.Quote(st.Username) + " is already taken"}
	}
	return &st, storeError(err, "")
}

// Authenticate returns the active account with this username and password, or ErrBadLogin.
// Either way the attempt, from address, goes in the audit log: a login as the account's own, a
// failure as a visitor's (with the account's id, or 0 for a name that is no account's).
func (s *StaffStore) Authenticate(ctx context.Context, username, password, address string) (*Staff, error) {
	var st Staff
	name := strings.ToLower(strings.TrimSpace(username))
	err := s.db.WithContext(ctx).Where("username = ?", name).Take(&st).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		_ = bcrypt.CompareHashAndPassword(dummyHash(), []byte(password))
		return nil, s.loginFailed(ctx, 0, name, address)
	}
	if err != nil {
		return nil, storeError(err, "")
	}
	if bcrypt.CompareHashAndPassword([]byte(st.PasswordHash), []byte(password)) != nil || !st.Active() {
		return nil, s.loginFailed(ctx, st.ID, st.Username, address)
	}
	now := s.db.NowFunc()
	err = s.db.WithContext(WithActor(ctx, StaffActor(st.Username))).Transaction(func(tx *gorm.DB) error {
		if err := tx.Model(&st).UpdateColumn("last_login_at", now).Error; err != nil {
			return err
		}
		return recordChange(tx, Change{Object: ObjectStaff, ID: st.ID, Name: st.Username, Action: AuditLogIn, After: Fields{"address": address}})
	})
	if err != nil {
		return nil, storeError(err, "")
	}
	st.LastLoginAt = &now
	return &st, nil
}

func (s *StaffStore) loginFailed(ctx context.Context, id int64, name, address string) error {
	err := recordChange(s.db.WithContext(WithActor(ctx, ActorVisitor)),
		Change{Object: ObjectStaff, ID: id, Name: name, Action: AuditLogInFailed, After: Fields{"address": address}})
	if err != nil {
		return storeError(err, "")
	}
	return ErrBadLogin
}

// RecordLockOut notes in the audit log that logins as username from address are refused until
// until, after too many failures.
func (s *StaffStore) RecordLockOut(ctx context.Context, username, address string, until time.Time) error {
	name := strings.ToLower(strings.TrimSpace(username))
	var st Staff
	err := s.db.WithContext(ctx).Select("id").Where("username = ?", name).Take(&st).Error
	if err != nil && !errors.Is(err, gorm.ErrRecordNotFound) {
		return storeError(err, "")
	}
	err = recordChange(s.db.WithContext(WithActor(ctx, ActorVisitor)), Change{Object: ObjectStaff, ID: st.ID, Name: name,
		Action: AuditLockOut, After: Fields{"address": address, "lockedUntil": until.UTC()}})
	return storeError(err, "")
}

// RecordLogOut notes in the audit log that the account id signed out, from address; an account
// deleted since its session began has nobody to note.
func (s *StaffStore) RecordLogOut(ctx context.Context, id int64, address string) error {
	var st Staff
	err := s.db.WithContext(ctx).Select("id, username").Take(&st, id).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil
	}
	if err != nil {
		return storeError(err, "")
	}
	err = recordChange(s.db.WithContext(WithActor(ctx, StaffActor(st.Username))),
		Change{Object: ObjectStaff, ID: st.ID, Name: st.Username, Action: AuditLogOut, After: Fields{"address": address}})
	return storeError(err, "")
}

// Get returns one account.
func (s *StaffStore) Get(ctx context.Context, id int64) (*Staff, error) {
	var st Staff
	err := s.db.WithContext(ctx).Take(&st, id).Error
	return &st, storeError(err, "staff member "+strconv.FormatInt(id, 10)+" not found")
}

// List returns every account by username; staff lists are short.
func (s *StaffStore) List(ctx context.Context) ([]Staff, error) {
	var list []Staff
	err := s.db.WithContext(ctx).Order("username").Find(&list).Error
	return list, storeError(err, "")
}

// SetDisabled disables or re-enables an account. Nobody may disable their own account, and the
// last active admin may not be disabled: either would lock the admins out.
func (s *StaffStore) SetDisabled(ctx context.Context, id int64, disabled bool, actorID int64) (*Staff, error) {
	var st *Staff
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var err error
		st, err = lockStaff(tx, id)
		if err != nil {
			return err
		}
		before := st.auditFields()
		action := AuditEnable
		if disabled {
			action = AuditDisable
			if err := mayDisable(tx, st, actorID); err != nil {
				return err
			}
			if st.DisabledAt == nil {
				now := tx.NowFunc()
				st.DisabledAt = &now
			}
		} else {
			st.DisabledAt = nil
		}
		if err := tx.Model(st).Update("disabled_at", st.DisabledAt).Error; err != nil {
			return err
		}
		return recordChange(tx, Change{Object: ObjectStaff, ID: st.ID, Name: st.Username, Action: action, Before: before, After: st.auditFields()})
	})
	if err != nil {
		return nil, storeError(err, "")
	}
	return st, nil
}

// mayDisable refuses to disable the person asking or the last active admin: either would lock
// the admins out.
func mayDisable(tx *gorm.DB, st *Staff, actorID int64) error {
	if st.ID == actorID {
		return Errorf(EConflict, "You cannot disable your own account; another admin can.")
	}
	if !st.IsAdmin() || !st.Active() {
		return nil
	}
	var admins int64
	if err := tx.Model(&Staff{}).Where("role = ? AND disabled_at IS NULL", RoleAdmin).Count(&admins).Error; err != nil {
		return err
	}
	if admins <= 1 {
		return Errorf(EConflict, "%s is the last active admin, so disabling the account would leave nobody to manage staff. Make another account an admin first.", st.Username)
	}
	return nil
}

// lockStaff reads an account and locks it until the transaction ends.
func lockStaff(tx *gorm.DB, id int64) (*Staff, error) {
	var st Staff
	if err := tx.Clauses(forUpdate).Take(&st, id).Error; err != nil {
		return nil, storeError(err, "staff member "+strconv.FormatInt(id, 10)+" not found")
	}
	return &st, nil
}

// ErrWrongPassword refuses a password change whose current password is wrong.
var ErrWrongPassword = &Error{Code: EValidation, Field: "current", Message: "current: that is not your current password"}

// ChangePassword sets a new password for the account's owner, who must give the current one. It
// clears a reset's must-change mark and ends the account's other sessions (PasswordChangedAt).
func (s *StaffStore) ChangePassword(ctx context.Context, id int64, current, password string) (*Staff, error) {
	st, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if bcrypt.CompareHashAndPassword([]byte(st.PasswordHash), []byte(current)) != nil {
		return nil, ErrWrongPassword
	}
	if verr := ValidatePassword("password", password, st.Username); verr != nil {
		return nil, verr
	}
	if password == current {
		return nil, FieldError("password", "must differ from your current password")
	}
	return s.setPassword(ctx, id, password, false, AuditChangePassword)
}

// ResetPassword gives another account a one-time password, returned to be shown once, which
// must be changed at the next login; the account's sessions end. Admins change their own
// password with ChangePassword, which asks for the current one.
func (s *StaffStore) ResetPassword(ctx context.Context, id, actorID int64) (*Staff, string, error) {
	if id == actorID {
		return nil, "", Errorf(EConflict, "You cannot reset your own password here; change it on your account page, with your current password.")
	}
	password := GeneratePassword()
	st, err := s.setPassword(ctx, id, password, true, AuditResetPassword)
	if err != nil {
		return nil, "", err
	}
	return st, password, nil
}

// SetPassword sets an account's password from the command line (for an admin who is locked out,
// say); the account's sessions end.
func (s *StaffStore) SetPassword(ctx context.Context, username, password string) (*Staff, error) {
	var st Staff
	name := strings.ToLower(strings.TrimSpace(username))
	if err := s.db.WithContext(ctx).Where("username = ?", name).Take(&st).Error; err != nil {
		return nil, storeError(err, "no staff account named "+strconv.Quote(name))
	}
	if verr := ValidatePassword("password", password, st.Username); verr != nil {
		return nil, verr
	}
	return s.setPassword(ctx, st.ID, password, false, AuditSetPassword)
}

// setPassword stores a new password hash (bcrypt at the store's cost, as for a new account) and
// records it.
func (s *StaffStore) setPassword(ctx context.Context, id int64, password string, mustChange bool, action string) (*Staff, error) {
	hash, err := bcrypt.GenerateFromPassword([]byte(password), s.cost)
	if err != nil {
		return nil, err
	}
	var st *Staff
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if st, err = lockStaff(tx, id); err != nil {
			return err
		}
		before := st.auditFields()
		now := tx.NowFunc()
		st.PasswordHash, st.MustChangePassword, st.PasswordChangedAt = string(hash), mustChange, &now
		err := tx.Model(st).Updates(map[string]any{"password_hash": st.PasswordHash,
			"must_change_password": mustChange, "password_changed_at": now}).Error
		if err != nil {
			return err
		}
		return recordChange(tx, Change{Object: ObjectStaff, ID: st.ID, Name: st.Username, Action: action, Before: before, After: st.auditFields()})
	})
	if err != nil {
		return nil, storeError(err, "")
	}
	return st, nil
}

// EnsureAdmin creates the account "admin" when there is no staff account at all, with password
// or, when password is empty, a generated one, which was printed where others may read it and
// so must be changed at the first login. It returns the password it set, or "" when staff
// already exist (or another instance starting at the same time created the account).
func (s *StaffStore) EnsureAdmin(ctx context.Context, password string) (string, error) {
	var n int64
	if err := s.db.WithContext(ctx).Model(&Staff{}).Count(&n).Error; err != nil {
		return "", storeError(err, "")
	}
	if n > 0 {
		return "", nil
	}
	generated := password == ""
	if generated {
		password = GeneratePassword()
	}
	st, err := s.withHash(NewStaff{Username: "admin", Password: password, Role: string(RoleAdmin)})
	if err != nil {
		return "", err
	}
	st.MustChangePassword = generated
	res := s.db.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(&st)
	if res.Error != nil {
		return "", storeError(res.Error, "")
	}
	if res.RowsAffected == 0 {
		return "", nil
	}
	return password, nil
}

// GeneratePassword returns a random password of 144 bits, in 24 URL-safe characters.
func GeneratePassword() string {
	b := make([]byte, 18)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
